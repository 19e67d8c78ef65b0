"""A game's outcome from its deals: the winner, the nets and payments, and the table's written result compared."""

from __future__ import annotations

import functools
from dataclasses import replace
from decimal import Decimal

from . import money
from .findings import ClaimMismatch, Finding, Unfinished
from .records import GameData
from .results import DealResult, GameResult, Status
from .rules import QUOTAS
from .words import plural


def quotas(rules, dealer: int) -> tuple[int, int, int]:
    """Each seat's quota in a deal of this dealer."""
    return _QUOTAS_BY_SEAT[rules.quota][dealer]


def _by_seat(by_role: tuple[int, int, int], dealer: int) -> tuple[int, int, int]:
    by_seat = [0, 0, 0]
    by_seat[dealer], by_seat[(dealer + 1) % 3], by_seat[(dealer + 2) % 3] = by_role
    return by_seat[0], by_seat[1], by_seat[2]


_QUOTAS_BY_SEAT = {name: tuple(_by_seat(q, D) for D in range(3)) for name, q in QUOTAS.items()}


def game_result(game: GameData, findings: list[Finding], source: str, deal_results: list[DealResult],
                winner: int | None, record: tuple[str | None, bytes | None], first_dealer: str | None = None,
                keep: bool = True, not_shown: int = 0, announce=None) -> GameResult:
    """The game's result: won or unfinished, the nets, and the table's written result compared.
    Without deals (the lane's), `first_dealer` names who dealt first; `keep` keeps the game as data;
    `announce` is told each finding made here (a traced replay's visitor)."""
    players, rules = game.players, game.rules
    net = payments = None
    if winner is None:
        last = deal_results[-1] if deal_results else None
        tallies = tuple((players[s], last.tricks[s]) for s in range(3)) if last else ()
        findings = [*findings, Unfinished(deals=len(deal_results), target=rules.target, tallies=tallies)]
        if announce is not None:
            announce(findings[-1])
    elif game.stake is not None:
        net, payments = settle_game(players, winner, deal_results[-1], game.stake)
    result = GameResult(
        id=game.id, source=source, status=Status.WON if winner is not None else Status.UNFINISHED,
        findings=findings, players=players, winner=players[winner] if winner is not None else None, deals=deal_results,
        stake=game.stake, currency=game.currency, net=net, payments=payments or [], rules=rules.as_dict(),
        series=game.series, played_at=game.played_at, first_dealer=game.deals[0].dealer if game.deals else first_dealer,
        data=game if keep else None, text=record[0], fingerprint=record[1], findings_not_shown=not_shown)
    mismatches = _written_result_compared(game, result) if game.claimed is not None else []
    for f in mismatches if announce is not None else ():
        announce(f)
    return replace(result, findings=[*findings, *mismatches]) if mismatches else result


def settle_game(players: tuple[str, ...], winner: int, deciding: DealResult,
                stake: Decimal) -> tuple[dict[str, Decimal], list[tuple[str, str, Decimal]]]:
    """Each player's net and the payments of a won game (docs/game.md §8); the nets sum to zero."""
    shorts = tuple(deciding.tricks[s] < deciding.quotas[s] for s in range(3))
    # The stake goes as text, which tells 0.5 from 0.50 (equal Decimals, one cache entry otherwise).
    nets, pays = _settle(winner, shorts, str(stake))
    return ({p: nets[s] for s, p in enumerate(players)},
            [(p, players[winner], pays[s]) for s, p in enumerate(players) if s != winner])


@functools.lru_cache(maxsize=4096)  # a season has few stakes: the sums are made once for each
def _settle(winner: int, shorts: tuple[bool, ...],
            stake_text: str) -> tuple[tuple[Decimal, ...], tuple[Decimal | None, ...]]:
    """Nets and payments by seat: a loser pays the stake, twice when short of quota."""
    stake = Decimal(stake_text)  # exactly the stake, exponent and all
    pays: list[Decimal | None] = [None, None, None]
    nets = [money.ZERO] * 3
    win_total = money.ZERO
    for s in range(3):
        if s != winner:
            pays[s] = pay = money.times(stake, 2 if shorts[s] else 1)
            nets[s] = money.times(pay, -1)
            win_total = money.add(win_total, pay)
    nets[winner] = win_total
    return tuple(nets), tuple(pays)


def _pair_nets(pays, players: tuple[str, ...]) -> dict[tuple[str, str], Decimal]:
    """Net amount per pair (a, b) in seat order: positive when a pays b."""
    order = {p: i for i, p in enumerate(players)}
    out: dict[tuple[str, str], Decimal] = {}
    for a, b, amt in pays:
        if order[a] < order[b]:
            key, net = (a, b), amt
        else:
            key, net = (b, a), money.times(amt, -1)
        out[key] = money.add(out.get(key, money.ZERO), net)
    return out


def _owes(first: str, second: str, net: Decimal) -> str:
    if net.is_zero():
        return f"nothing between {first} and {second}"
    if net > 0:
        return f"{first} pays {second} {money.fmt(net)}"
    return f"{second} pays {first} {money.fmt(net.copy_negate())}"


def _payment(payer: str, payee: str, amount: Decimal) -> dict[str, str]:
    return {"from": payer, "to": payee, "amount": money.fmt(amount)}


def _written_result_compared(game: GameData, result: GameResult) -> list[Finding]:
    """CLAIM_MISMATCH for each part of the table's written result (winner, tricks, payments) the replay denies."""
    table, players, out = game.claimed, game.players, []
    if table.winner_claimed and table.winner != result.winner:
        out.append(ClaimMismatch(part="winner", claimed=table.winner, replayed=result.winner))
    ref = result.last_deal
    if table.tricks is not None and ref is not None:
        replayed = {p: ref.tricks[s] for s, p in enumerate(players)}
        if any(replayed[p] != n for p, n in table.tricks.items()):
            out.append(ClaimMismatch(part="tricks", claimed=dict(table.tricks), replayed=replayed, in_deal=ref.number))
    if table.payments is not None and table.payments != result.payments:
        claimed, replayed = _pair_nets(table.payments, players), _pair_nets(result.payments, players)
        words = []
        for i in range(3):
            for j in range(i + 1, 3):
                key = (players[i], players[j])
                written, ruled = claimed.get(key, money.ZERO), replayed.get(key, money.ZERO)
                if written != ruled:
                    words.append(f"the table wrote {_owes(*key, written)}; the rules say {_owes(*key, ruled)}")
        if words:
            out.append(ClaimMismatch(
                part="payments", words="; ".join(words) + _why_payments(result),
                claimed=[_payment(*paid) for paid in table.payments],
                replayed=[_payment(*paid) for paid in result.payments]))
    return out


def _why_payments(result: GameResult) -> str:
    deciding = result.deciding
    if deciding is None:
        return " (the game is unfinished: no money changes hands)"
    if result.stake is None:
        return " (the game has no stake)"
    took, quota = deciding.tricks, deciding.quotas
    parts = [f"{p} took {plural(took[s], 'trick')}, quota {quota[s]}{': short' if took[s] < quota[s] else ''}"
             for s, p in enumerate(result.players) if p != result.winner]
    return f" ({'; '.join(parts)})"
