"""What a replay meets, as typed events of seats and cards (ints); their receiver, the visitor, is in visitor.py.

The engine sends events only when it is given a visitor: a replay without one builds none. The
views (the terminal replay, the HTML page) and `replay --json` all read these same events and
turn seats and cards into words (`to_dict(players)` is the JSON form).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .board import role
from .cards import CANONICAL, names
from .findings import Finding
from .visitor import Recorder, Visitor  # noqa: F401 - the events' receivers, named here too


def _event(kind: str):
    """Make a class an event of this kind: a frozen record the visitor dispatches on (`on_<kind>`)."""
    def make(cls):
        cls.kind = kind
        return dataclass(frozen=True, slots=True)(cls)
    return make


@dataclass(frozen=True, slots=True)
class _InDeal:
    deal: int


@dataclass(frozen=True, slots=True)
class _AtTrick(_InDeal):
    trick: int


def _by_seat(players: tuple[str, ...], values) -> dict[str, Any]:
    return {players[s]: values[s] for s in range(3)}


@_event("deal")
class DealStarted(_InDeal):
    """A deal begins: who deals, each seat's quota, the hands (by seat, display order) and kitty as
    dealt (None: a record of the play that does not show them)."""

    dealer: int
    quotas: tuple[int, int, int]  # by seat
    hands: tuple[tuple[int, ...], ...] | None  # by seat
    kitty: tuple[int, ...] | None

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        order = (self.dealer, (self.dealer + 1) % 3, (self.dealer + 2) % 3)
        return {"event": self.kind, "deal": self.deal, "dealer": players[self.dealer],
                "roles": {players[s]: role(s, self.dealer) for s in order}, "quotas": _by_seat(players, self.quotas),
                "hands": None if self.hands is None else _by_seat(players, [names(h) for h in self.hands]),
                "kitty": None if self.kitty is None else names(self.kitty)}


@_event("pass")
class PassMade(_InDeal):
    """One pass and its return, with what the receiver held in the suit before it (the proof; None
    when the record does not show his hand)."""

    number: int
    giver: int
    receiver: int
    card: int
    returned: int
    receiver_suit_before: tuple[int, ...] | None  # display order

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        before = self.receiver_suit_before
        return {"event": self.kind, "deal": self.deal, "pass": self.number, "from": players[self.giver],
                "to": players[self.receiver], "card": CANONICAL[self.card], "returned": CANONICAL[self.returned],
                "receiver_suit_before": None if before is None else [CANONICAL[c] for c in before]}


@_event("kitty")
class KittyExchanged(_InDeal):
    """The dealer took the kitty and set aside his discards; the hands at the first lead. In a record
    of the play: what it shows of them (None: not recorded), and how many cards of each hand it does not."""

    dealer: int
    kitty: tuple[int, ...] | None
    discards: tuple[int, ...] | None  # as recorded
    hands: tuple[tuple[int, ...], ...]  # by seat, display order
    unknown: tuple[int, int, int] | None = None  # by seat; None: every hand is known

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        out = {"event": self.kind, "deal": self.deal, "dealer": players[self.dealer],
               "kitty": None if self.kitty is None else names(self.kitty),
               "discards": None if self.discards is None else [CANONICAL[c] for c in self.discards],
               "hands": _by_seat(players, [[CANONICAL[c] for c in h] for h in self.hands])}
        if self.unknown is not None:
            out["unknown"] = _by_seat(players, self.unknown)
        return out


@_event("play")
class CardPlayed(_AtTrick):
    """A card played to a trick, and the cards that were legal for the player then."""

    player: int
    card: int
    legal: tuple[int, ...]  # display order

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"event": self.kind, "deal": self.deal, "trick": self.trick, "player": players[self.player],
                "card": CANONICAL[self.card], "legal": [CANONICAL[c] for c in self.legal]}


@_event("trick")
class TrickWon(_AtTrick):
    """A trick complete: its leader, the cards in play order, the winner and the tallies after it."""

    leader: int
    cards: tuple[int, ...]
    winner: int
    tallies: tuple[int, int, int]  # by seat

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"event": self.kind, "deal": self.deal, "trick": self.trick, "leader": players[self.leader],
                "cards": [CANONICAL[c] for c in self.cards], "winner": players[self.winner],
                "tallies": _by_seat(players, self.tallies)}


@_event("finding")
class FindingMade:
    """A breach or a warning, where the replay met it."""

    finding: Finding

    @property
    def deal(self) -> int | None:
        """The deal the finding is in (None for one about the whole game)."""
        return self.finding.deal

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"event": self.kind, **self.finding.to_dict()}


@_event("claim")
class ClaimJudged(_AtTrick):
    """A claim of the remaining tricks, judged from the hands as replayed (docs/game.md §12)."""

    by: int
    accepted: bool
    statement: str | None
    tricks: int
    claim_rule: str
    holds: bool | None
    line: tuple[tuple[int, ...], ...] | None  # the refuting line, trick by trick
    leader: int
    tallies: tuple[int, int, int]  # by seat, the claimed tricks credited
    not_judged: str | None = None  # why `holds` is None

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        out = {"event": self.kind, "deal": self.deal, "trick": self.trick, "by": players[self.by],
               "accepted": self.accepted, "statement": self.statement, "tricks": self.tricks,
               "claim_rule": self.claim_rule, "holds": self.holds,
               "line": None if self.line is None else [[CANONICAL[c] for c in t] for t in self.line],
               "leader": players[self.leader], "tallies": _by_seat(players, self.tallies)}
        if self.not_judged is not None:
            out["not_judged"] = self.not_judged
        return out


@_event("result")
class GameEnded:
    """The game's result: `validate --json`'s fields, with quota outcomes and payments."""

    result: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        return self.result


@_event("position")
class PositionReached(_AtTrick):
    """The table at a stopping point: tallies, each hand and its legal cards on the recorded lead."""

    to_move: int
    tricks: tuple[int, int, int]  # by seat
    hands: tuple[tuple[int, ...], ...]  # by seat, display order
    legal: tuple[tuple[int, ...], ...]  # by seat
    recorded: tuple[int, ...] | None  # the cards recorded for the trick stopped before
    unknown: tuple[int, int, int] | None = None  # by seat, cards held that the record does not show
    over: bool = False  # the deal had ended (the game won, or 16 tricks played): nobody is to play

    def to_dict(self, players: tuple[str, ...]) -> dict[str, Any]:
        order = [(self.to_move + j) % 3 for j in range(3)]
        out = {"event": self.kind, "deal": self.deal, "trick": self.trick,
               "to_move": None if self.over else players[self.to_move], "over": self.over,
               "tricks": _by_seat(players, self.tricks),
               "hands": {players[s]: [CANONICAL[c] for c in self.hands[s]] for s in order},
               "legal": {players[s]: [CANONICAL[c] for c in self.legal[s]] for s in order},
               "recorded": None if self.recorded is None else [CANONICAL[c] for c in self.recorded]}
        if self.unknown is not None:
            out["unknown"] = {players[s]: self.unknown[s] for s in order}
        return out


Event = (DealStarted | PassMade | KittyExchanged | CardPlayed | TrickWon | FindingMade | ClaimJudged | GameEnded
         | PositionReached)
