"""The rules of play, written once (docs/game.md §4-7), and the table states the replay and the solver drive."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import BIT, SUIT_MASK, SUIT_OF, hand_cards

HAND_SIZE = 16
KITTY_SIZE = 4
DISCARDS = 4
TRICKS_PER_DEAL = 16
ROLE_NAMES = ("D", "L", "R")


def role(seat: int, dealer: int) -> str:
    """'D', 'L' or 'R': a seat's role in a deal."""
    return ROLE_NAMES[(seat - dealer) % 3]


def pass_order(dealer: int) -> tuple[tuple[int, int], ...]:
    """The three passes as (giver, receiver): L gives to R, R to D, D to L."""
    left, right = (dealer + 1) % 3, (dealer + 2) % 3
    return (left, right), (right, dealer), (dealer, left)


def returns_allowed(before: int, received: int, highest: bool) -> int:
    """The cards (a mask) the receiver may return for `received`, from his hand `before` the pass;
    0 when any card will do. 'highest': his highest card of the suit; 'higher': any above it."""
    suit_cards = before & SUIT_MASK[SUIT_OF[received]]
    if highest:
        return BIT[suit_cards.bit_length() - 1] if suit_cards else 0
    return suit_cards & ~((BIT[received] << 1) - 1)


def wrong_return(before: int, received: int, returned: int, highest: bool) -> bool:
    """Whether returning `returned` for `received` breaks the return rule."""
    allowed = returns_allowed(before, received, highest)
    return bool(allowed) and not allowed & BIT[returned]


def legal_mask(hand: int, led_suit: int | None) -> int:
    """The cards of a hand mask that may be played on a lead of `led_suit` (None: leading)."""
    if led_suit is not None:
        follow = hand & SUIT_MASK[led_suit]
        if follow:
            return follow
    return hand


def legal_cards(hand: list[int], led_suit: int | None) -> list[int]:
    """The distinct cards of a hand (a list) that may be played on a lead of `led_suit`."""
    mask = 0
    for c in hand:
        mask |= BIT[c]
    return hand_cards(legal_mask(mask, led_suit))


def revokes(hand: int, card: int, led_suit: int) -> bool:
    """Whether playing `card` on a lead of `led_suit` fails to follow suit from `hand` (held before it)."""
    return SUIT_OF[card] != led_suit and bool(hand & SUIT_MASK[led_suit])


def trick_winner(leader: int, cards: list[int]) -> int:
    """The seat that wins a trick: the highest card of the suit led (the first of two equals)."""
    led = SUIT_OF[cards[0]]
    best, winner = cards[0], leader
    for j in range(1, len(cards)):
        card = cards[j]
        if SUIT_OF[card] == led and card > best:
            best, winner = card, (leader + j) % 3
    return winner


def card_in_two_hands(masks) -> int | None:
    """A card two hands hold at once (the lowest), which no deal of one deck gives: a breach put it there."""
    shared = (masks[0] & masks[1]) | (masks[0] & masks[2]) | (masks[1] & masks[2])
    return (shared & -shared).bit_length() - 1 if shared else None


def deal_over(tallies, target: int, played: int) -> bool:
    """The deal has ended: a player has reached the target, or all 16 tricks are played."""
    return max(tallies) >= target or played >= TRICKS_PER_DEAL


@dataclass(slots=True)
class Position:
    """The table just before a trick: each seat's hand, the leader due, and his legal cards."""

    deal: int
    trick: int
    hands: tuple[list[int], list[int], list[int]]
    tricks: list[int]
    to_move: int
    legal: list[int]
    unknown: tuple[int, int, int] = (0, 0, 0)  # by seat, cards held that the record does not show


class Hands:
    """Three hands as a record has them, which may be wrong: a mask each, plus the extra copies
    of a card dealt more than once. Taking a card not held says so and changes nothing."""

    __slots__ = ("masks", "extra")

    def __init__(self, masks=(0, 0, 0)) -> None:
        self.masks = list(masks)
        self.extra: list[dict[int, int]] = [{}, {}, {}]

    def add(self, seat: int, card: int) -> None:
        """Give one copy of a card to a seat."""
        if self.masks[seat] & BIT[card]:
            self.extra[seat][card] = self.extra[seat].get(card, 0) + 1
        else:
            self.masks[seat] |= BIT[card]

    def take(self, seat: int, card: int) -> bool:
        """Take one copy of a card from a seat; False when he holds none."""
        if not self.masks[seat] & BIT[card]:
            return False
        extra = self.extra[seat]
        if card in extra:
            extra[card] -= 1
            if not extra[card]:
                del extra[card]
        else:
            self.masks[seat] &= ~BIT[card]
        return True

    def cards(self, seat: int) -> list[int]:
        """A seat's cards in display order, every copy."""
        return hand_cards(self.masks[seat], self.extra[seat])

    def size(self, seat: int) -> int:
        """How many cards a seat holds, every copy."""
        return self.masks[seat].bit_count() + sum(self.extra[seat].values())

    def exchange_kitty(self, dealer: int, kitty: list[int], discards: list[int], pickup: bool) -> list[tuple[int, bool]]:
        """The dealer takes the kitty and sets aside his discards: under 'swap' from his own cards,
        before he takes it; under 'pickup' from all twenty. Returns each discard he could not set
        aside, as (card, whether it is a kitty card set aside under 'swap')."""
        if pickup:
            for c in kitty:
                self.add(dealer, c)
            return [(c, False) for c in discards if not self.take(dealer, c)]
        left = list(kitty)
        misfits = []
        for c in discards:
            if self.take(dealer, c):
                continue
            if c in left:
                left.remove(c)
                misfits.append((c, True))
            else:
                misfits.append((c, False))
        for c in left:
            self.add(dealer, c)
        return misfits


class Board:
    """One deal between two cards: hands as 52-bit masks (one copy of each card), seats 0-2.

    `played` counts the deal's finished tricks; the deal is over after the trick that brings a
    player to `target`, after the 16th trick, or when the player to move holds no card.
    """

    __slots__ = ("hands", "leader", "trick", "tallies", "played", "target", "_undo")

    def __init__(self, hands: tuple[int, int, int] | list[int], leader: int, tallies=(0, 0, 0),
                 played: int = 0, target: int = 12, trick: list[int] | None = None) -> None:
        self.hands = list(hands)
        self.leader = leader
        self.trick: list[int] = list(trick or [])
        self.tallies = list(tallies)
        self.played = played
        self.target = target
        # (card, seat, the trick as it stood when this card completed it, its leader) per card.
        self._undo: list[tuple[int, int, list[int] | None, int]] = []
        for j, c in enumerate(self.trick):
            if self.hands[(leader + j) % 3] & BIT[c]:
                raise ValueError("a card on the table is also in its player's hand")

    @property
    def turn(self) -> int:
        """The seat to play next."""
        return (self.leader + len(self.trick)) % 3

    def is_over(self) -> bool:
        """True when the deal has ended (target reached, 16 tricks, or the player to move has no card)."""
        return deal_over(self.tallies, self.target, self.played) or not self.hands[self.turn]

    def winning(self) -> tuple[int, int]:
        """The card now winning the trick in progress (not empty) and its seat."""
        seat = trick_winner(self.leader, self.trick)
        return self.trick[(seat - self.leader) % 3], seat

    def legal_mask(self) -> int:
        """The legal cards of the player to move, as a mask."""
        led = SUIT_OF[self.trick[0]] if self.trick else None
        return legal_mask(self.hands[self.turn], led)

    def legal_moves(self) -> list[int]:
        """The legal cards of the player to move, in display order."""
        return hand_cards(self.legal_mask())

    def play(self, card: int) -> int | None:
        """Play a card for the player to move; return the trick's winner when it completes it."""
        seat = self.turn
        bit = BIT[card]
        if not self.hands[seat] & bit:
            raise ValueError(f"seat {seat} does not hold card {card}")
        self.hands[seat] ^= bit
        self.trick.append(card)
        if len(self.trick) < 3:
            self._undo.append((card, seat, None, self.leader))
            return None
        winner = trick_winner(self.leader, self.trick)
        self._undo.append((card, seat, self.trick, self.leader))
        self.tallies[winner] += 1
        self.played += 1
        self.leader = winner
        self.trick = []
        return winner

    def undo(self) -> int:
        """Take back the last card played; return it."""
        card, seat, done, old_leader = self._undo.pop()
        if done is not None:
            self.tallies[self.leader] -= 1
            self.played -= 1
            self.leader = old_leader
            self.trick = done
        self.trick.pop()
        self.hands[seat] |= BIT[card]
        return card

    def copy(self) -> "Board":
        """An independent board in the same state, without the undo history."""
        return Board(self.hands, self.leader, self.tallies, self.played, self.target, self.trick)

    def key(self) -> tuple:
        """A compact hashable key of the state (what the solver's tables are keyed by)."""
        hands, tallies = self.hands, self.tallies
        return (hands[0], hands[1], hands[2], self.leader, tuple(self.trick), tallies[0], tallies[1], tallies[2],
                self.played)

    def tricks_left(self) -> int:
        """An upper bound on the tricks still to be played in the deal (the one in progress included)."""
        cards = min(self.hands[(self.leader + j) % 3].bit_count() for j in range(len(self.trick), 3))
        return min(TRICKS_PER_DEAL - self.played, cards)
