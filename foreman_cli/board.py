"""The table during play: three hands, the trick in progress, tallies; legal moves, play and undo."""

from __future__ import annotations

from .cards import BIT, SUIT_MASK, SUIT_OF, hand_cards

TRICKS_PER_DEAL = 16


def legal_mask(hand: int, led_suit: int | None) -> int:
    """The cards of a hand mask that may be played on a lead of `led_suit` (None: leading)."""
    if led_suit is not None:
        follow = hand & SUIT_MASK[led_suit]
        if follow:
            return follow
    return hand


def trick_winner(leader: int, cards: list[int]) -> int:
    """The seat that wins a trick: the highest card of the suit led (the first of two equals)."""
    led = SUIT_OF[cards[0]]
    best, w = cards[0], leader
    for j in range(1, len(cards)):
        c = cards[j]
        if SUIT_OF[c] == led and c > best:
            best, w = c, (leader + j) % 3
    return w


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
        return (max(self.tallies) >= self.target or self.played >= TRICKS_PER_DEAL
                or not self.hands[self.turn])

    def legal_mask(self) -> int:
        """The legal cards of the player to move, as a mask."""
        led = SUIT_OF[self.trick[0]] if self.trick else None
        return legal_mask(self.hands[self.turn], led)

    def legal_moves(self) -> list[int]:
        """The legal cards of the player to move, in display order."""
        return hand_cards(self.legal_mask())

    def play(self, card: int) -> int | None:
        """Play a card for the player to move; return the trick's winner when it completes it."""
        s = self.turn
        b = BIT[card]
        if not self.hands[s] & b:
            raise ValueError(f"seat {s} does not hold card {card}")
        self.hands[s] ^= b
        self.trick.append(card)
        if len(self.trick) < 3:
            self._undo.append((card, s, None, self.leader))
            return None
        w = trick_winner(self.leader, self.trick)
        self._undo.append((card, s, self.trick, self.leader))
        self.tallies[w] += 1
        self.played += 1
        self.leader = w
        self.trick = []
        return w

    def undo(self) -> int:
        """Take back the last card played; return it."""
        card, s, done, old_leader = self._undo.pop()
        if done is not None:
            self.tallies[self.leader] -= 1
            self.played -= 1
            self.leader = old_leader
            self.trick = done
        self.trick.pop()
        self.hands[s] |= BIT[card]
        return card

    def copy(self) -> "Board":
        """An independent board in the same state, without the undo history."""
        return Board(self.hands, self.leader, self.tallies, self.played, self.target, self.trick)

    def key(self) -> tuple:
        """A compact hashable key of the state (what the solver's tables are keyed by)."""
        h = self.hands
        t = self.tallies
        return (h[0], h[1], h[2], self.leader, tuple(self.trick), t[0], t[1], t[2], self.played)

    def tricks_left(self) -> int:
        """An upper bound on the tricks still to be played in the deal (the one in progress included)."""
        cards = min(self.hands[(self.leader + j) % 3].bit_count() for j in range(len(self.trick), 3))
        return min(TRICKS_PER_DEAL - self.played, cards)
