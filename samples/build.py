"""Rebuild the sample records from seeded games (run: .venv/bin/python samples/build.py).

Each sample is a story of a real kind of dispute; the seeds are fixed, so the files come out the
same every time. The breaches are made by the generator's --inject, or by editing a legal game
the way a careless or a crafty player would.
"""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path

from foreman_cli import money
from foreman_cli.generate import as_seen, generate
from foreman_cli.rules import HouseRules

HERE = Path(__file__).parent
TABLE = ["alice", "bob", "carol"]


def pick(pred, **kw):
    """The first seeded game (from seed 1 up) that fits pred."""
    for seed in count(1):
        (rec, where), = generate(1, seed, players=TABLE, **kw)
        if pred(rec, where):
            return rec, where
    raise AssertionError("unreachable")


def restake(rec: dict, stake: str = "1.00", currency: str = "GBP") -> dict:
    """Play the game for `stake` in `currency`, rewriting the table's claimed payments to match."""
    old = rec.get("stake")
    for p in (rec.get("claimed") or {}).get("payments") or []:
        k = money.EXACT.divide(money.amount(p["amount"]), money.amount(old))
        p["amount"] = money.fmt(money.times(money.amount(stake), int(k)))
    rec["stake"], rec["currency"] = stake, currency
    return rec


def dump(name: str, rec: dict, **fields) -> None:
    rec = restake(rec)
    rec = {"format": rec["format"], "id": fields.pop("id"),
           **{k: v for k, v in rec.items() if k not in ("format", "id")}, **fields}
    (HERE / name).write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n")


def won_in(deals: int):
    return lambda rec, where: rec["claimed"]["winner"] is not None and len(rec["deals"]) == deals and \
        rec.get("stake") is not None


def main() -> None:
    for old in [*HERE.glob("*.json*"), *HERE.glob("*.fmn")]:
        old.unlink()
    rec, _ = pick(won_in(1), stacked=1.0)
    dump("01-clean-win.json", rec, id="fri-01-clean",
         notes="A clean game: bob's strong hand takes 12 tricks in the first deal.")

    rec, _ = pick(won_in(4), stacked=0.15)
    dump("02-four-deals.json", rec, id="fri-02-long",
         notes="Three deals with nobody at 12; the fourth decides it.")

    rec, where = pick(lambda r, w: w.trick >= 9 and len(r["deals"]) == 1, inject="REVOKE", inject_trick=9,
                      stacked=1.0)
    dump("03-late-revoke.json", rec, id="fri-03-revoke",
         notes=f"{where.player} played {where.card} off-suit late in the deal (trick {where.trick}); "
               "the table only noticed when the hand was over.")

    rec, where = pick(lambda r, w: len(r["deals"]) <= 2, inject="RETURN_WRONG_CARD", stacked=0.5)
    dump("04-wrong-return.json", rec, id="fri-04-return",
         notes=f"In pass {where.pass_}, {where.player} handed back {where.card}, not the card the rule asks for.")

    rec, where = pick(lambda r, w: len(r["deals"]) <= 2, inject="DISCARD_NOT_HELD", stacked=0.5)
    dump("05-kitty-discard.json", rec, id="fri-05-kitty",
         notes=f"{where.player} dealt, took the kitty and put {where.card}, a kitty card, straight back.")

    rec, _ = pick(lambda r, w: won_in(1)(r, w) and _k(r) == 2, stacked=1.0)
    restake(rec)
    for p in rec["claimed"]["payments"]:
        p["amount"] = "1.00"  # the table paid single stakes: forgot that both losers were short
    dump("06-wrong-payout.json", rec, id="fri-06-payout",
         notes="The table wrote single stakes; both losers were short of quota, so each owes two.")

    rec, _ = pick(lambda r, w: won_in(1)(r, w), stacked=1.0, rules=HouseRules(quota="9-5-2"))
    dump("07-nine-five-two.json", rec, id="fri-07-952", notes="A 9-5-2 table: the dealer's quota is 9.")

    rec, where = pick(lambda r, w: won_in(len(r["deals"]))(r, w) and len(r["deals"]) <= 2
                      and r["claimed"]["winner"] == w.player, inject="CLAIM_REFUTED", stacked=0.5)
    rec["deals"][where.deal - 1]["claim"]["statement"] = "the rest are mine"
    dump("09-contested-claim.json", rec, id="fri-09-claim",
         notes=f"{where.player} showed his cards before trick {where.trick} and claimed the rest; the others "
               "objected, and the table credited the tricks anyway.")

    _evenings()
    _play_only_evening()


def _k(rec: dict) -> int:
    cl = rec["claimed"]
    return sum(1 for p in cl["payments"] if money.amount(p["amount"]) == money.times(money.amount(rec["stake"]), 2))


def _evenings() -> None:
    """Two Friday evenings of three games: the second has a game dealt by the wrong player."""
    lines = []
    ev1 = list(generate(3, 41, players=TABLE, series_size=3, stacked=0.6, prefix="fri-1127"))
    for i, (rec, _) in enumerate(ev1):
        rec["series"] = {"id": "friday-2026-11-27", "seq": i + 1}
        rec["id"] = f"friday-1127-g{i + 1}"
        lines.append(restake(rec) if rec.get("stake") else rec)
    ev2 = list(generate(2, 43, players=TABLE, series_size=2, stacked=0.6, prefix="fri-1204"))
    for i, (rec, _) in enumerate(ev2):
        rec["series"] = {"id": "friday-2026-12-04", "seq": i + 1}
        rec["id"] = f"friday-1204-g{i + 1}"
        lines.append(restake(rec) if rec.get("stake") else rec)
    last = ev2[-1][0]
    winner = last["claimed"]["winner"]
    tricks = last["claimed"]["tricks"]
    others = {p: n for p, n in tricks.items() if p != winner}
    fewest = min(others.values())
    barred = [p for p, n in others.items() if n > fewest]
    # The third game was dealt by the one player the succession rule leaves out.
    rec, _ = pick(lambda r, w: r["deals"][0]["dealer"] == barred[0] and won_in(1)(r, w), stacked=1.0)
    rec["series"] = {"id": "friday-2026-12-04", "seq": 3}
    rec["id"] = "friday-1204-g3"
    restake(rec)
    rec["notes"] = f"{barred[0]} dealt the first deal, though {winner} won the last game and the others took fewer."
    lines.append(rec)
    with open(HERE / "08-friday-evenings.jsonl", "w") as f:
        for rec in lines:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")


def _seen_only(rec: dict, left_in: int | None = None) -> dict:
    """The record as a scorer at the table keeps it (foreman/1.2): the tricks, not the hands, kitty,
    passes or discards; with `left_in`, that deal's cards left in hand as the players showed them."""
    return as_seen(restake(rec), {dn: dn == left_in for dn in range(1, len(rec["deals"]) + 1)})


def _plays_suit_later(rec: dict, where) -> bool:
    d = rec["deals"][where.deal - 1]
    led = d["tricks"][where.trick - 1]["cards"][0][-1]
    seat = rec["players"].index(where.player)
    return any(t["cards"][(seat - rec["players"].index(t["leader"])) % 3][-1] == led for t in d["tricks"][where.trick:])


def _play_only_evening() -> None:
    """An evening kept at the table in notation: the tricks only, a revoke that a later card proves,
    and a contested claim refuted by the cards the players showed when it was made."""
    from foreman_cli.convert import write_game
    games = []
    rec, _ = pick(won_in(2), stacked=0.5)
    games.append(({**_seen_only(rec), "id": "fri-1211-g1"}, "Kept at the table: the tricks of each deal, nothing else."))
    rec, where = pick(lambda r, w: len(r["deals"]) == 1 and w.trick <= 6 and _plays_suit_later(r, w),
                      inject="REVOKE", stacked=1.0)
    games.append(({**_seen_only(rec), "id": "fri-1211-g2"},
                  f"{where.player} showed out at trick {where.trick}; a later trick shows he held the suit."))
    rec, where = pick(lambda r, w: won_in(len(r["deals"]))(r, w) and len(r["deals"]) == 2,
                      inject="CLAIM_REFUTED", stacked=0.3)
    games.append(({**_seen_only(rec, left_in=where.deal), "id": "fri-1211-g3"},
                  f"{where.player} claimed the rest before trick {where.trick}; the others laid their cards "
                  "down (left) and objected."))
    with open(HERE / "10-play-only-evening.fmn", "w") as f:
        f.write("# Friday 11 December, kept at the table: the tricks only (foreman/1.2 records of the play)\n")
        for i, (rec, note) in enumerate(games):
            rec.pop("played_at", None)
            rec["played_at"] = f"2026-12-11T{20 + i}:00:00+00:00"
            rec["notes"] = note
            f.write("\n" + write_game(rec))


if __name__ == "__main__":
    main()
