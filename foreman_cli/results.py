"""What a replay gives for one game: status, winner, tallies per deal, nets and findings."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import StrEnum
from typing import Any

from . import money
from .board import role
from .findings import ERROR, UNDISPUTED, Finding, repeat_mark


@dataclass(frozen=True, slots=True)
class DealResult:
    """One deal as replayed: who dealt, each seat's role, quota and tricks when play stopped."""

    number: int
    dealer: int
    quotas: tuple[int, int, int]  # by seat
    tricks: list[int]  # by seat
    tricks_played: int  # tricks counted (not those after the end), the claimed ones included
    decided: bool = False
    winners: list[int | None] = field(default_factory=list)  # by recorded trick, until play stopped
    claim: Any = None  # claims.ClaimResult of the deal's claim, when it has one

    def __reduce__(self):
        # A plain tuple pickles several times faster than the slots state (--jobs sends many).
        return (DealResult, (self.number, self.dealer, self.quotas, self.tricks, self.tricks_played, self.decided,
                             self.winners, self.claim))

    def role(self, seat: int) -> str:
        """'D', 'L' or 'R' for a seat in this deal."""
        return role(seat, self.dealer)

    def outcome(self, seat: int) -> int:
        """Tricks taken minus quota (positive: up, negative: down)."""
        return self.tricks[seat] - self.quotas[seat]


class Status(StrEnum):
    """A game's status: won, unfinished (nobody reached the target), or invalid (not replayable)."""

    WON = "won"
    UNFINISHED = "unfinished"
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class GameResult:
    """The replay of one record (or why it could not be replayed), never changed once made: the
    checks across games make a new one with their findings (`with_findings`, `as_repeat`)."""

    id: str | None
    source: str
    status: Status
    findings: tuple[Finding, ...] = ()
    players: tuple[str, ...] = ()
    winner: str | None = None
    deals: list[DealResult] = field(default_factory=list)
    stake: Decimal | None = None
    currency: str | None = None
    net: dict[str, Decimal] | None = None
    payments: list[tuple[str, str, Decimal]] = field(default_factory=list)
    rules: dict[str, Any] | None = None
    series: tuple[str, int] | None = None
    played_at: str | None = None
    first_dealer: str | None = None
    fingerprint: bytes | None = None
    data: Any = None  # the decoded record (records.GameData), when it could be decoded
    text: str | None = None  # the record's JSON text as read
    findings_not_shown: int = 0  # findings of the play beyond engine.MAX_FINDINGS, counted only

    def __post_init__(self) -> None:
        if not isinstance(self.findings, tuple):
            object.__setattr__(self, "findings", tuple(self.findings))  # what a frozen dataclass allows itself

    @property
    def deals_played(self) -> int:
        """The deciding deal's number for a won game, the number of deals otherwise (0 if invalid)."""
        if self.status == "won":
            return next(deal.number for deal in self.deals if deal.decided)
        return len(self.deals)

    @property
    def deciding(self) -> DealResult | None:
        """The deciding deal of a won game."""
        for deal in self.deals:
            if deal.decided:
                return deal
        return None

    @property
    def last_deal(self) -> DealResult | None:
        """The deciding deal if won, else the last deal played."""
        return self.deciding or (self.deals[-1] if self.deals else None)

    @property
    def has_errors(self) -> bool:
        """True when any finding is a breach (severity error)."""
        return any(f.severity == ERROR for f in self.findings)

    @property
    def repeat(self) -> bool:
        """True when the id was read before: this copy takes part in nothing but its DUPLICATE_GAME."""
        return repeat_mark(self.findings) is not None

    @property
    def in_doubt(self) -> bool:
        """True for a repeat that may differ from its first copy (another record, or one that could
        not be compared): which record the table played is then in doubt, and every command says so."""
        mark = repeat_mark(self.findings)
        return mark is not None and mark.in_doubt

    def as_repeat(self, duplicate: Finding) -> GameResult:
        """This result as a repeat's: its DUPLICATE_GAME is then its only finding (its first copy has the rest)."""
        return replace(self, findings=(duplicate,))

    def with_findings(self, more: tuple[Finding, ...]) -> GameResult:
        """This result with findings added (the checks across games find them)."""
        return replace(self, findings=(*self.findings, *more))

    @property
    def disputes(self) -> list[Finding]:
        """The breaches of play that dispute the game's money (a wrong claim or a repeat does not)."""
        return [f for f in self.findings if f.severity == ERROR and f.code not in UNDISPUTED]

    @property
    def short_of_quota(self) -> list[str]:
        """The non-winners short of quota in the deciding deal."""
        deciding = self.deciding
        if deciding is None:
            return []
        return [p for s, p in enumerate(self.players) if p != self.winner and deciding.tricks[s] < deciding.quotas[s]]

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (one line of `validate --json`)."""
        deciding = self.deciding
        return {
            "id": self.id,
            "source": self.source,
            "status": self.status,
            "winner": self.winner,
            "deals_played": self.deals_played,
            "deciding_tricks": ({p: deciding.tricks[s] for s, p in enumerate(self.players)} if deciding else None),
            "net": ({p: money.fmt(v) for p, v in self.net.items()} if self.net is not None else None),
            "stake": money.fmt(self.stake) if self.stake is not None else None,
            "currency": self.currency,
            "violations": [f.to_dict() for f in self.findings],
            **({"violations_not_shown": self.findings_not_shown} if self.findings_not_shown else {}),
        }


@dataclass(frozen=True, slots=True)
class GameLine:
    """A replayed game as one line of `validate --json`, with what the checks across games and the
    summary need of it: what a worker sends back in place of the whole result, which costs more to
    send than the line costs to make. `findings` holds the findings the checks across games add."""

    id: str | None
    source: str
    status: Status
    fingerprint: bytes | None
    series: tuple[str, int] | None
    facts: dict[str, Any] | None  # audit.series_facts, for a game of a series
    codes: tuple[str, ...]  # the codes of the replay's own findings
    errors: bool  # whether one of them is a breach
    line: bytes  # the JSON of GameResult.to_dict(); empty in what a load gets back (audit.staged_line)
    findings: tuple[Finding, ...] = ()

    def __reduce__(self):
        # As a plain tuple: workers send one of these a game, and the slots state pickles slower.
        return (GameLine, (self.id, self.source, self.status, self.fingerprint, self.series, self.facts, self.codes,
                           self.errors, self.line, self.findings))

    @property
    def repeat(self) -> bool:
        """True when the id was read before (GameResult.repeat)."""
        return repeat_mark(self.findings) is not None

    def as_repeat(self, duplicate: Finding) -> GameLine:
        """This line as a repeat's: its DUPLICATE_GAME is then its only finding (GameResult.as_repeat)."""
        line = self.line
        if line:
            import msgspec
            data = msgspec.json.decode(line)
            data["violations"] = []
            line = msgspec.json.encode(data)
        return replace(self, codes=(), errors=False, line=line, findings=(duplicate,))

    def with_findings(self, more: tuple[Finding, ...]) -> GameLine:
        """This line with findings added (GameResult.with_findings)."""
        return replace(self, findings=(*self.findings, *more))

    @property
    def has_errors(self) -> bool:
        """True when any finding, the replay's or one added since, is a breach."""
        return self.errors or any(f.severity == ERROR for f in self.findings)

    def json(self) -> bytes:
        """The line, with the findings added since it was made at the end of its violations."""
        if not self.findings:
            return self.line
        import msgspec
        data = msgspec.json.decode(self.line)
        data["violations"].extend(f.to_dict() for f in self.findings)
        return msgspec.json.encode(data)
