"""Records of the play (docs/game.md §13): where a deal's record puts each card, and what that proves."""

from __future__ import annotations

from dataclasses import dataclass

from .board import HAND_SIZE, TRICKS_PER_DEAL, returns_allowed, trick_winner, wrong_return
from .cards import BIT, CARD_OF, SUIT_MASK, SUIT_OF, hand_cards
from .proof import Proof

PLAYED, ASIDE = 3, 4  # places beside the three seats' hands


@dataclass(slots=True)
class PassSeen:
    """What a recorded pass proves: the given card not the giver's, the returned card not the receiver's."""

    not_given: Proof | None
    not_returned: Proof | None


def checked_tricks(deal, seat: dict[str, int], target: int) -> int:
    """How many of a deal's recorded tricks count: up to the one that reaches the target. The tricks
    after it are recorded after the game ended and prove nothing."""
    won = [0, 0, 0]
    for tn, t in enumerate(deal.tricks, 1):
        if not t.cards:
            continue
        winner = trick_winner(seat[t.leader], [CARD_OF[x] for x in t.cards[:3]])
        won[winner] += 1
        if won[winner] >= target:
            return tn
    return len(deal.tricks)


class Seen:
    """One deal of a record that leaves out what the table did not see: each card's known place,
    followed through the record's own order (passes, kitty, discards, tricks, `left`), and each
    play, pass, discard and card left that the places contradict."""

    def __init__(self, deal, seat: dict[str, int], players: tuple[str, ...], dealer: int, pickup: bool,
                 target: int) -> None:
        self.players, self.dealer = players, dealer
        self.place: dict[int, tuple[int, Proof]] = {}
        self.kitty = None if deal.kitty is None else [CARD_OF[x] for x in deal.kitty]
        self.passes = [self._pass(pn, seat[ps.from_], seat[ps.to], CARD_OF[ps.card], CARD_OF[ps.returned])
                       for pn, ps in enumerate(deal.passes or (), 1)]
        self.received = [(seat[ps.to], CARD_OF[ps.card], seat[ps.from_], CARD_OF[ps.returned])
                         for ps in deal.passes or ()]
        self.discards = self._kitty(deal.discards, pickup)
        self.after_kitty = dict(self.place)
        self.end = checked_tricks(deal, seat, target)
        self.tricks = [(seat[t.leader], [CARD_OF[x] for x in t.cards[:3]]) for t in deal.tricks[:self.end]]
        self.not_played: dict[tuple[int, int], Proof] = {}  # (trick, position in it): CARD_NOT_HELD's proof
        self.plays: tuple[list[tuple[int, int]], ...] = ([], [], [])  # by seat: (card, trick) of each held play
        for tn, (leader, cards) in enumerate(self.tricks, 1):
            for j, c in enumerate(cards):
                self._play(tn, j, (leader + j) % 3, c)
        self.recorded_left = deal.left is not None
        self.left: tuple[list[int], ...] = ([], [], [])  # by seat, the cards left that the record allows
        self.not_left: list[tuple[int, int, Proof]] = []  # (seat, card, proof): CARD_NOT_HELD, trick null
        if deal.left is not None:
            for s, name in enumerate(players):
                for c in map(CARD_OF.__getitem__, deal.left[name]):
                    self._leave(s, c)

    def _check(self, card: int, seat: int) -> Proof | None:
        """Where the record put `card`, when that is not `seat`'s hand (None: his, or nowhere known)."""
        known = self.place.get(card)
        return None if known is None or known[0] == seat else known[1]

    def _pass(self, pn: int, giver: int, receiver: int, given: int, returned: int) -> PassSeen:
        not_given = self._check(given, giver)
        self.place[given] = (receiver, ("pass", pn, self.players[receiver]))
        # Giving back the card just received is never holding it before the pass.
        not_returned = ("pass", pn, self.players[receiver]) if returned == given else self._check(returned, receiver)
        self.place[returned] = (giver, ("pass", pn, self.players[giver]))
        return PassSeen(not_given, not_returned)

    def _kitty(self, discards, pickup: bool) -> list[tuple[int, Proof | None, bool]] | None:
        """The kitty to the dealer, the discards set aside: each discard with the proof that he did
        not hold it and whether it is a kitty card discarded under 'swap'."""
        dealer = self.dealer
        for c in self.kitty or ():
            self.place[c] = (dealer, ("kitty", self.players[dealer]))
        if discards is None:
            return None
        out = []
        for c in map(CARD_OF.__getitem__, discards):
            from_kitty = not pickup and self.kitty is not None and c in self.kitty
            out.append((c, None if from_kitty else self._check(c, dealer), from_kitty))
            self.place[c] = (ASIDE, ("discard",))
        return out

    def _play(self, tn: int, place: int, seat: int, card: int) -> None:
        proof = self._check(card, seat)
        if proof is None:
            self.plays[seat].append((card, tn))
        else:
            self.not_played[(tn, place)] = proof
        self.place[card] = (PLAYED, ("trick", tn, self.players[seat]))

    def _leave(self, seat: int, card: int) -> None:
        proof = self._check(card, seat)
        if proof is None:
            self.left[seat].append(card)
        else:
            self.not_left.append((seat, card, proof))
        self.place[card] = (seat, ("left", self.players[seat]))

    def held_later(self, seat: int, suit: int, after: int) -> list[tuple[int, int | str]]:
        """The cards of `suit` `seat` is proved to have held after trick `after`: played later
        (held plays only) or left, each with its trick or "left", in display order."""
        mask = SUIT_MASK[suit]
        found = {c: tn for c, tn in self.plays[seat] if tn > after and BIT[c] & mask}
        found.update((c, "left") for c in self.left[seat] if BIT[c] & mask and c not in found)
        return [(c, found[c]) for c in hand_cards(sum(BIT[c] for c in found))]

    def wrong_return(self, pn: int, highest: bool) -> list[tuple[int, int | str]] | None:
        """The proof that pass pn's return broke the return rule: the cards the receiver should have
        returned, each with the trick he played it at or "left"; None when nothing is proved."""
        receiver, given, giver, returned = self.received[pn - 1]
        if self.passes[pn - 1].not_returned is not None or (receiver == self.dealer and self.kitty is None):
            return None
        came_later = {card for r, card, g, back in self.received[pn:] if r == receiver} | \
                     {back for r, card, g, back in self.received[pn:] if g == receiver}
        if receiver == self.dealer:
            came_later |= set(self.kitty)
        proved = {y: at for y, at in self.held_later(receiver, SUIT_OF[given], 0) if y not in came_later and y != given}
        before = sum(BIT[y] for y in proved) | BIT[returned]
        if not wrong_return(before, given, returned, highest):
            return None
        return [(y, proved[y]) for y in hand_cards(returns_allowed(before, given, highest))]

    @property
    def hands_known(self) -> bool:
        """The hands from the first lead on are known: `left` recorded, or all 16 tricks played."""
        return self.recorded_left or len(self.tricks) == TRICKS_PER_DEAL

    def known_at(self, tn: int) -> tuple[tuple[list[int], ...], tuple[int, int, int]]:
        """Before trick tn: the cards known to be in each seat's hand, and how many more it holds unknown."""
        gone = {c for _, cards in self.tricks[:tn - 1] for c in cards}
        known = []
        unknown = []
        for s in range(3):
            held = [c for c, (where, _) in self.after_kitty.items() if where == s and c not in gone]
            held += [c for c, t in self.plays[s] if t >= tn]
            mask = 0
            for c in (*held, *self.left[s]):  # or, not a sum: a card may be shown twice (a left repeating it)
                mask |= BIT[c]
            known.append(hand_cards(mask))
            unknown.append(max(self.size_at(s, tn) - mask.bit_count(), 0))
        return tuple(known), (unknown[0], unknown[1], unknown[2])

    def size_at(self, seat: int, tn: int) -> int:
        """How many cards the seat holds before trick tn: a hand of 16 less the cards it has played."""
        return HAND_SIZE - sum(1 for leader, cards in self.tricks[:tn - 1] if (seat - leader) % 3 < len(cards))
