"""What a replay meets, as typed events, and the visitor that receives them (python-chess's BaseVisitor).

The engine sends events only when it is given a visitor: a replay without one builds none. The
views (the terminal replay, the HTML page) and `replay --json` all read these same events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .findings import Finding


@dataclass(frozen=True, slots=True)
class DealStarted:
    """A deal begins: who deals, each player's role and quota, the hands and kitty as dealt."""

    kind: ClassVar[str] = "deal"
    deal: int
    dealer: str
    roles: dict[str, str]
    quotas: dict[str, int]
    hands: dict[str, list[str]]
    kitty: list[str]

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return {"event": self.kind, "deal": self.deal, "dealer": self.dealer, "roles": self.roles,
                "quotas": self.quotas, "hands": self.hands, "kitty": self.kitty}


@dataclass(frozen=True, slots=True)
class PassMade:
    """One pass and its return, with what the receiver held in the suit before it (the proof)."""

    kind: ClassVar[str] = "pass"
    deal: int
    number: int
    giver: str
    receiver: str
    card: str
    returned: str
    receiver_suit_before: list[str]

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return {"event": self.kind, "deal": self.deal, "pass": self.number, "from": self.giver, "to": self.receiver,
                "card": self.card, "returned": self.returned, "receiver_suit_before": self.receiver_suit_before}


@dataclass(frozen=True, slots=True)
class KittyExchanged:
    """The dealer took the kitty and set aside his discards; the hands at the first lead."""

    kind: ClassVar[str] = "kitty"
    deal: int
    dealer: str
    kitty: list[str]
    discards: list[str]
    hands: dict[str, list[str]]

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return {"event": self.kind, "deal": self.deal, "dealer": self.dealer, "kitty": self.kitty,
                "discards": self.discards, "hands": self.hands}


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A card played to a trick, and the cards that were legal for the player then."""

    kind: ClassVar[str] = "play"
    deal: int
    trick: int
    player: str
    card: str
    legal: list[str]

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return {"event": self.kind, "deal": self.deal, "trick": self.trick, "player": self.player, "card": self.card,
                "legal": self.legal}


@dataclass(frozen=True, slots=True)
class TrickWon:
    """A trick complete: its leader, the cards in play order, the winner and the tallies after it."""

    kind: ClassVar[str] = "trick"
    deal: int
    trick: int
    leader: str
    cards: list[str]
    winner: str
    tallies: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return {"event": self.kind, "deal": self.deal, "trick": self.trick, "leader": self.leader,
                "cards": self.cards, "winner": self.winner, "tallies": self.tallies}


@dataclass(frozen=True, slots=True)
class FindingMade:
    """A breach or a warning, where the replay met it."""

    kind: ClassVar[str] = "finding"
    finding: Finding

    @property
    def deal(self) -> int | None:
        """The deal the finding is in (None for one about the whole game)."""
        return self.finding.deal

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return {"event": self.kind, **self.finding.to_dict()}


@dataclass(frozen=True, slots=True)
class ClaimJudged:
    """A claim of the remaining tricks, judged from the hands as replayed (RULES.md 12)."""

    kind: ClassVar[str] = "claim"
    deal: int
    trick: int
    by: str
    accepted: bool
    statement: str | None
    tricks: int
    claim_rule: str
    holds: bool | None
    line: list[str] | None
    leader: str
    tallies: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it (and as `claims.claim_words` reads it)."""
        return {"event": self.kind, "deal": self.deal, "trick": self.trick, "by": self.by, "accepted": self.accepted,
                "statement": self.statement, "tricks": self.tricks, "claim_rule": self.claim_rule, "holds": self.holds,
                "line": self.line, "leader": self.leader, "tallies": self.tallies}


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game's result: `validate --json`'s fields, with quota outcomes and payments."""

    kind: ClassVar[str] = "result"
    result: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return self.result


@dataclass(frozen=True, slots=True)
class PositionReached:
    """The table at a stopping point: tallies, each hand and its legal cards on the recorded lead."""

    kind: ClassVar[str] = "position"
    deal: int
    trick: int
    to_move: str
    tricks: dict[str, int]
    hands: dict[str, list[str]]
    legal: dict[str, list[str]]
    recorded: list[str] | None

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return {"event": self.kind, "deal": self.deal, "trick": self.trick, "to_move": self.to_move,
                "tricks": self.tricks, "hands": self.hands, "legal": self.legal, "recorded": self.recorded}


Event = (DealStarted | PassMade | KittyExchanged | CardPlayed | TrickWon | FindingMade | ClaimJudged | GameEnded
         | PositionReached)


class Visitor:
    """Receives a replay's events: `visit` calls `on_<kind>` (on_deal, on_pass, ...) when defined."""

    def visit(self, event: Event) -> None:
        """Hand one event to its handler."""
        handler = getattr(self, "on_" + event.kind, None)
        if handler is not None:
            handler(event)


class Recorder(Visitor):
    """A visitor that keeps every event, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def visit(self, event: Event) -> None:
        """Keep the event."""
        self.events.append(event)
