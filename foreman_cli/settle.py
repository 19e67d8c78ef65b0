"""Settling bets: per-game payouts, balances per currency, and the fewest transfers that pay them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from . import money
from .claims import describe
from .findings import CODES, ERROR, repeat_mark
from .records import name_clashes
from .results import GameResult

NO_CURRENCY = ""  # no real currency is empty (docs/format.md), so a label such as "(none)" stays apart
EXACT_LIMIT = 12  # players in one currency up to which the fewest transfers are found exactly


@dataclass(frozen=True, slots=True)
class Transfer:
    """One payment that settles balances."""

    payer: str
    payee: str
    amount: Decimal
    currency: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, amounts as strings."""
        return {"from": self.payer, "to": self.payee, "amount": money.fmt(self.amount), "currency": self.currency}


@dataclass(slots=True)
class LedgerLine:
    """One game in the ledger: what it pays, and why it does not when it does not."""

    id: str | None
    source: str
    status: str
    winner: str | None
    stake: Decimal | None
    currency: str
    short: list[tuple[str, int, int]]  # player, tricks, quota: non-winners short in the deciding deal
    net: dict[str, Decimal] | None
    claim: list[str]  # each difference between the claimed and the replayed result
    claims: list[str]  # each claim of the remaining tricks, with its verdict (docs/game.md §12)
    disputed: bool
    counted: bool
    reason: str | None  # why it is left out of the balances, or how it is counted
    first_finding: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "id": self.id, "source": self.source, "status": self.status, "winner": self.winner,
            "stake": money.fmt(self.stake) if self.stake is not None else None, "currency": self.currency,
            "short": [{"player": p, "tricks": t, "quota": q} for p, t, q in self.short],
            "net": {p: money.fmt(v) for p, v in self.net.items()} if self.net is not None else None,
            "claim": self.claim, "claims": self.claims, "disputed": self.disputed, "counted": self.counted, "reason": self.reason,
            "first_finding": self.first_finding,
        }


@dataclass(frozen=True, slots=True)
class Repeat:
    """A record whose id was read before: it takes part in nothing (docs/game.md §11)."""

    id: str
    source: str
    message: str
    identical: bool = True  # byte for byte
    same_record: bool | None = True  # False or None (not compared): which record the table played is in doubt

    @property
    def in_doubt(self) -> bool:
        """True when the two records of the game may differ: the first stands, whatever its status."""
        return not (self.identical or self.same_record)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"id": self.id, "source": self.source, "message": self.message, "identical": self.identical,
                "same_record": self.same_record}


@dataclass(slots=True)
class Settlement:
    """The ledger of a set of games: lines, balances per currency, transfers, what was left out."""

    games: list[LedgerLine] = field(default_factory=list)  # empty when the lines went to a writer instead
    balances: dict[str, dict[str, Decimal]] = field(default_factory=dict)
    transfers: list[Transfer] = field(default_factory=list)
    as_played: bool = False
    left_out: int = 0  # games with a stake or a record that are not counted (invalid, or disputed)
    repeats: list[Repeat] = field(default_factory=list)  # copies of games read before: not games of the ledger
    name_clashes: list[list[str]] = field(default_factory=list)  # names in the balances that are one name written two ways
    read: int = 0  # games read (each id once), whether their lines were kept or written as they came

    @property
    def excluded(self) -> list[tuple[str | None, str]]:
        """(id, reason) of each game left out of the balances."""
        return [(g.id, g.reason or "") for g in self.games if not g.counted]

    @property
    def conflicting(self) -> list[Repeat]:
        """The repeats that differ from their first copy: which record of the game is right is in doubt."""
        return [r for r in self.repeats if r.in_doubt]

    @property
    def disputed(self) -> list[LedgerLine]:
        """The games with breaches."""
        return [g for g in self.games if g.disputed]

    def to_dict(self) -> dict[str, Any]:
        """The settlement as JSON-ready data."""
        return {
            "games": [g.to_dict() for g in self.games],
            "balances": {c: {p: money.fmt(v) for p, v in b.items()} for c, b in self.balances.items()},
            "transfers": [t.to_dict() for t in self.transfers],
            "excluded": [{"id": i, "reason": r} for i, r in self.excluded],
            "as_played": self.as_played,
            "repeats": [r.to_dict() for r in self.repeats],
            "name_clashes": self.name_clashes,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Settlement":
        """Read back what to_dict wrote."""
        def decimal_of(value):
            return money.amount(value) if value is not None else None

        games = [LedgerLine(
            id=g["id"], source=g["source"], status=g["status"], winner=g["winner"], stake=decimal_of(g["stake"]),
            currency=g["currency"], short=[(s["player"], s["tricks"], s["quota"]) for s in g["short"]],
            net={p: money.amount(v) for p, v in g["net"].items()} if g["net"] is not None else None,
            claim=list(g["claim"]), claims=list(g.get("claims", [])), disputed=g["disputed"], counted=g["counted"], reason=g["reason"],
            first_finding=g["first_finding"]) for g in data["games"]]
        return cls(
            games=games,
            balances={c: {p: money.amount(v) for p, v in b.items()} for c, b in data["balances"].items()},
            transfers=[Transfer(t["from"], t["to"], money.amount(t["amount"]), t["currency"])
                       for t in data["transfers"]],
            as_played=data["as_played"],
            repeats=[Repeat(r["id"], r["source"], r["message"], r.get("identical", True),
                            r.get("same_record", r.get("identical", True)))
                     for r in data.get("repeats", [])],
            name_clashes=data.get("name_clashes", []),
            read=len(games),
        )


def settle(results: Iterable[GameResult], as_played: bool = False,
           on_line: Callable[[LedgerLine], None] | None = None) -> Settlement:
    """Build the ledger of replayed games: count clean won games with a stake, list the rest.

    With `on_line` each game's line goes to it as soon as it is settled and is not kept: the
    ledger then holds only the balances, whatever the number of games.
    """
    out = Settlement(as_played=as_played)
    for r in results:
        if r.repeat:
            mark = repeat_mark(r.findings)
            out.repeats.append(Repeat(r.id, r.source, mark.message, mark.identical, mark.same_record))
            continue
        line = _line(r, as_played)
        out.read += 1
        out.left_out += line.status == "invalid" or (line.disputed and not line.counted)
        if on_line is not None:
            on_line(line)
        else:
            out.games.append(line)
        if line.counted and line.net:
            bal = out.balances.setdefault(line.currency, {})
            for p, v in line.net.items():
                bal[p] = money.add(bal.get(p, money.ZERO), v)
    for cur in sorted(out.balances):
        out.balances[cur] = dict(sorted(out.balances[cur].items()))
        out.transfers.extend(Transfer(a, b, v, cur) for a, b, v in fewest_transfers(out.balances[cur]))
    out.name_clashes = name_clashes(p for bal in out.balances.values() for p in bal)
    return out


def _line(result: GameResult, as_played: bool) -> LedgerLine:
    errors = [f for f in result.findings if f.severity == ERROR]
    # A wrong claim does not dispute the game: the replay is paid and the difference reported. A record
    # that cannot be replayed is invalid, not disputed: there was no play to dispute.
    breaches = result.disputes
    first = breaches[0] if breaches else None
    deciding = result.deciding
    short = []
    if deciding is not None:
        short = [(p, deciding.tricks[s], deciding.quotas[s]) for s, p in enumerate(result.players)
                 if p != result.winner and deciding.tricks[s] < deciding.quotas[s]]
    counted = False
    if result.status == "invalid":
        reason = f"invalid record: {result.findings[0].message}" if result.findings else "invalid record"
    elif result.status == "unfinished":
        reason = "unfinished: no money changes hands"
    elif result.stake is None:
        reason = "played for no stake"
    elif first is not None and not as_played:
        reason = f"disputed: {first.text()}"
    else:
        counted = True
        reason = f"counted as played despite: {first.text()}" if first is not None else None
    return LedgerLine(
        id=result.id, source=result.source, status=result.status, winner=result.winner, stake=result.stake,
        currency=result.currency or NO_CURRENCY, short=short, net=result.net,
        claim=[f.message for f in errors if CODES[f.code].shown_at == "result"],
        claims=[f"deal {deal.number}: " + describe(result.players[c.by], c.first_trick, c.tricks, c.accepted, c.rule,
                                                    c.holds)
                for deal in result.deals if (c := deal.claim) is not None],
        disputed=first is not None and result.status != "invalid", counted=counted, reason=reason,
        first_finding=first.text() if first is not None else None,
    )


def fewest_transfers(balances: dict[str, Decimal]) -> list[tuple[str, str, Decimal]]:
    """Payments (payer, payee, amount) that settle balances summing to zero, as few as possible.

    Exact for up to EXACT_LIMIT players with a non-zero balance: the fewest payments is the
    number of players minus the most groups the players split into that each sum to zero, found
    by a search over subsets. Above that, the largest debtor pays the largest creditor in turn,
    which needs at most players - 1 payments.
    """
    live = sorted((p, v) for p, v in balances.items() if not v.is_zero())
    if money.total(v for _, v in live) != 0:
        raise ValueError("balances do not sum to zero")  # a bug of ours, never the user's input
    if len(live) > EXACT_LIMIT:
        return sorted(_greedy(live))
    groups = _zero_sum_groups(live)
    out = []
    for g in groups:
        out.extend(_greedy(g))
    return sorted(out)


def _zero_sum_groups(live: list[tuple[str, Decimal]]) -> list[list[tuple[str, Decimal]]]:
    n = len(live)
    full = (1 << n) - 1
    sums = [money.ZERO] * (1 << n)
    for mask in range(1, 1 << n):
        low = (mask & -mask).bit_length() - 1
        sums[mask] = money.add(sums[mask & (mask - 1)], live[low][1])
    best = [0] * (1 << n)  # the most zero-sum groups that the players of mask split into
    for mask in range(1, 1 << n):
        m = mask
        top = 0
        while m:
            low = m & -m
            top = max(top, best[mask ^ low])
            m ^= low
        best[mask] = top + (1 if sums[mask].is_zero() else 0)
    # Walk back, removing one player at a time; a prefix summing to zero closes a group.
    order = []
    mask = full
    while mask:
        m = mask
        while m:
            low = m & -m
            if best[mask ^ low] + (1 if sums[mask].is_zero() else 0) == best[mask]:
                break
            m ^= low
        order.append(low.bit_length() - 1)
        mask ^= low
    groups: list[list[tuple[str, Decimal]]] = []
    current: list[tuple[str, Decimal]] = []
    acc = money.ZERO
    for i in reversed(order):
        current.append(live[i])
        acc = money.add(acc, live[i][1])
        if acc.is_zero():
            groups.append(current)
            current = []
    return groups


def _greedy(live: list[tuple[str, Decimal]]) -> list[tuple[str, str, Decimal]]:
    debt = {p: v.copy_negate() for p, v in live if v < 0}  # copy_negate is exact; unary minus rounds
    credit = {p: v for p, v in live if v > 0}
    out = []
    while debt:
        payer = max(debt, key=lambda p: (debt[p], p))
        payee = max(credit, key=lambda p: (credit[p], p))
        amt = min(debt[payer], credit[payee])
        out.append((payer, payee, amt))
        for book, who in ((debt, payer), (credit, payee)):
            book[who] = money.add(book[who], amt.copy_negate())
            if book[who].is_zero():
                del book[who]
    return out
