"""What a replay meets, as typed events (their receiver, the visitor, is in visitor.py).

The engine sends events only when it is given a visitor: a replay without one builds none. The
views (the terminal replay, the HTML page) and `replay --json` all read these same events.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from .findings import Finding
from .visitor import Recorder, Visitor  # noqa: F401 - the events' receivers, named here too


class _Event:
    """What every event shares: its kind, and its JSON form (`replay --json`) from its fields."""

    __slots__ = ()
    kind: ClassVar[str]
    json_names: ClassVar[dict[str, str]] = {}  # a field written under another name

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return {"event": self.kind, **{self.json_names.get(f.name, f.name): getattr(self, f.name)
                                       for f in fields(self)}}


@dataclass(frozen=True, slots=True)
class DealStarted(_Event):
    """A deal begins: who deals, each player's role and quota, the hands and kitty as dealt."""

    kind: ClassVar[str] = "deal"
    deal: int
    dealer: str
    roles: dict[str, str]
    quotas: dict[str, int]
    hands: dict[str, list[str]]
    kitty: list[str]


@dataclass(frozen=True, slots=True)
class PassMade(_Event):
    """One pass and its return, with what the receiver held in the suit before it (the proof)."""

    kind: ClassVar[str] = "pass"
    json_names: ClassVar[dict[str, str]] = {"number": "pass", "giver": "from", "receiver": "to"}
    deal: int
    number: int
    giver: str
    receiver: str
    card: str
    returned: str
    receiver_suit_before: list[str]


@dataclass(frozen=True, slots=True)
class KittyExchanged(_Event):
    """The dealer took the kitty and set aside his discards; the hands at the first lead."""

    kind: ClassVar[str] = "kitty"
    deal: int
    dealer: str
    kitty: list[str]
    discards: list[str]
    hands: dict[str, list[str]]


@dataclass(frozen=True, slots=True)
class CardPlayed(_Event):
    """A card played to a trick, and the cards that were legal for the player then."""

    kind: ClassVar[str] = "play"
    deal: int
    trick: int
    player: str
    card: str
    legal: list[str]


@dataclass(frozen=True, slots=True)
class TrickWon(_Event):
    """A trick complete: its leader, the cards in play order, the winner and the tallies after it."""

    kind: ClassVar[str] = "trick"
    deal: int
    trick: int
    leader: str
    cards: list[str]
    winner: str
    tallies: dict[str, int]


@dataclass(frozen=True, slots=True)
class FindingMade(_Event):
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
class ClaimJudged(_Event):
    """A claim of the remaining tricks, judged from the hands as replayed (docs/game.md §12)."""

    kind: ClassVar[str] = "claim"
    deal: int
    trick: int
    by: str
    accepted: bool
    statement: str | None
    tricks: int
    claim_rule: str
    holds: bool | None
    line: list[list[str]] | None  # the refuting line, trick by trick
    leader: str
    tallies: dict[str, int]


@dataclass(frozen=True, slots=True)
class GameEnded(_Event):
    """The game's result: `validate --json`'s fields, with quota outcomes and payments."""

    kind: ClassVar[str] = "result"
    result: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """As `replay --json` writes it."""
        return self.result


@dataclass(frozen=True, slots=True)
class PositionReached(_Event):
    """The table at a stopping point: tallies, each hand and its legal cards on the recorded lead."""

    kind: ClassVar[str] = "position"
    deal: int
    trick: int
    to_move: str
    tricks: dict[str, int]
    hands: dict[str, list[str]]
    legal: dict[str, list[str]]
    recorded: list[str] | None



Event = (DealStarted | PassMade | KittyExchanged | CardPlayed | TrickWon | FindingMade | ClaimJudged | GameEnded
         | PositionReached)
