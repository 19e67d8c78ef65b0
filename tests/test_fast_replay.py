"""The compiled fast paths of the replay and the decoder against the Python reference."""

from __future__ import annotations

import random

import pytest

from foreman_cli import core, engine, records
from foreman_cli.cards import CARD_OF
from foreman_cli.generate import INJECTABLE, generate
from foreman_cli.rules import CHOICES, HouseRules

need_c = pytest.mark.skipif(core.clean_deal is None, reason="the compiled core is not built (or FOREMAN_PURE=1)")


def _rules(seed: int) -> HouseRules:
    rnd = random.Random(seed)
    return HouseRules(**{k: rnd.choice(v) for k, v in CHOICES.items()}, target=rnd.choice([12, 12, 10, 14]))


def _games():
    """Clean games under random house options, and games with each injectable breach."""
    for n in range(12):
        yield from generate(15, 100 + n, rules=_rules(n), max_deals=6, claims=0.2, series_size=3)
    for n, code in enumerate(INJECTABLE):
        rules = _rules(50 + n)
        if code == "WRONG_DEALER":  # under deal_rotation 'free' any dealer is right
            rules = HouseRules(**{**rules.as_dict(), "deal_rotation": "left"})
        yield from generate(12, 300 + n, inject=code, rules=rules, max_deals=5)


@pytest.fixture(scope="module")
def decoded() -> list[records.GameData]:
    import json
    out = [records.decode(json.dumps(rec)) for rec, _ in _games()]
    assert all(isinstance(g, records.GameData) for g in out)
    return out


def _deal_args(g: records.GameData):
    P, seat = g.players, g.seat
    for d in g.deals:
        yield ((d.hands[P[0]], d.hands[P[1]], d.hands[P[2]]), d.kitty, d.passes, d.discards, d.tricks, seat,
               seat[d.dealer], g.rules.return_rule == "highest", g.rules.target, g.rules.kitty == "pickup")


def _result(r):
    return (r.to_dict(), [(d.number, d.dealer, d.quotas, d.tricks, d.tricks_played, d.decided, d.winners)
                          for d in r.deals])


@need_c
def test_the_compiled_pass_leaves_the_replay_as_the_reference_gives_it(decoded, monkeypatch):
    answers = {"plain": 0, "closer": 0}
    for g in decoded:
        for args in _deal_args(g):
            plain = core.clean_deal(*args[:-1], CARD_OF, args[-1]) is not None
            answers["plain" if plain else "closer"] += 1
    assert answers["plain"] > 300 and answers["closer"] > 100  # both answers are exercised
    with_fast = [_result(engine.replay(g)) for g in decoded]
    monkeypatch.setattr(core, "clean_deal", None)  # the reference: every deal through the full replay
    without = [_result(engine.replay(g)) for g in decoded]
    assert with_fast == without
    assert any(r[0]["violations"] for r in without) and any(not r[0]["violations"] for r in without)


def _played_alone(rnd: random.Random):
    """The games as records of the play alone (foreman/1.2, some deals with `left`), and copies with
    two cards of a deal's tricks swapped: revokes shown by a later card, leads out of turn, cards
    played twice."""
    import json
    from foreman_cli.generate import as_seen
    for rec, _ in _games():
        seen = as_seen(rec, {dn: rnd.random() < 0.1 for dn in range(1, len(rec["deals"]) + 1)})
        yield seen
        swapped = json.loads(json.dumps(seen))
        for deal in swapped["deals"]:
            cards = [(t, i) for t in deal["tricks"] for i in range(len(t["cards"]))]
            if len(cards) > 1 and rnd.random() < 0.5:
                (t1, i1), (t2, i2) = rnd.sample(cards, 2)
                t1["cards"][i1], t2["cards"][i2] = t2["cards"][i2], t1["cards"][i1]
        yield swapped


@need_c
def test_the_compiled_pass_leaves_a_record_of_the_play_as_the_reference_replays_it(monkeypatch):
    import json
    games = [records.decode(json.dumps(rec)) for rec in _played_alone(random.Random(7))]
    assert all(isinstance(g, records.GameData) for g in games)
    answers = {"plain": 0, "closer": 0}
    for g in games:
        for d in g.deals:
            if records.is_play_alone(d):
                r = core.clean_deal(None, None, None, None, d.tricks, g.seat, g.seat[d.dealer], False,
                                    g.rules.target, CARD_OF)
                answers["plain" if r is not None else "closer"] += 1
    assert answers["plain"] > 300 and answers["closer"] > 100  # both answers are exercised
    with_fast = [_result(engine.replay(g)) for g in games]
    monkeypatch.setattr(core, "clean_deal", None)
    without = [_result(engine.replay(g)) for g in games]
    assert with_fast == without
    codes = {v["code"] for r in without for v in r[0]["violations"]}
    assert {"REVOKE", "CARD_NOT_HELD", "LEAD_OUT_OF_TURN"} <= codes


def test_the_name_check_refuses_a_stranger_wherever_a_name_stands(decoded):
    import copy
    checked = 0
    for g in decoded[:60]:
        fast = records._whole_decoder().decode(records.msgspec.json.encode(_as_record(g)))
        seat = {n: i for i, n in enumerate(fast.players)}
        assert records.names_ok(fast.deals, seat) is True
        # a stranger at each place a name can be: both checks refuse it
        for where in ("dealer", "leader", "from_", "to", "hand", "claim"):
            bad = copy.deepcopy(fast.deals)
            d = bad[-1]
            if where == "dealer":
                d.dealer = "zed"
            elif where == "leader" and d.tricks:
                d.tricks[-1].leader = "zed"
            elif where in ("from_", "to") and d.passes:
                setattr(d.passes[-1], where, "zed")
            elif where == "hand":
                d.hands["zed"] = d.hands.pop(fast.players[0])
            elif where == "claim" and d.claim is not None:
                d.claim.by = "zed"
            else:
                continue
            assert records.names_ok(bad, seat) is False, where
            checked += 1
    assert checked > 200


def _as_record(g: records.GameData) -> dict:
    """The decoded game written back as a foreman/1.1 record (what the fast decoder reads)."""
    return {"format": "foreman/1.1", "id": g.id, "players": list(g.players),
            "deals": [{"dealer": d.dealer, "hands": d.hands, "kitty": d.kitty,
                       "passes": [{"from": p.from_, "to": p.to, "card": p.card, "returned": p.returned}
                                  for p in d.passes],
                       "discards": d.discards, "tricks": [{"leader": t.leader, "cards": t.cards} for t in d.tricks],
                       **({"claim": {"by": d.claim.by, "accepted": d.claim.accepted}} if d.claim else {})}
                      for d in g.deals]}


@need_c
def test_the_compiled_deal_codes_answer_as_the_python_reference(decoded):
    """The archive's card lists (store.deal_codes and _core.deal_codes): the same bytes and offsets
    for every deal, clean or not, with every trick or only the first few."""
    from foreman_cli import archive as store
    from foreman_cli.cards import CARD_OF

    def columns():
        return [store.code_column() for _ in range(9)]
    deals = 0
    for g in decoded:
        want, got = columns(), columns()
        for d in g.deals:
            n = len(d.tricks) - deals % 3  # every trick, or all but the last one or two
            store.deal_codes(d, g.players, g.seat, CARD_OF, n, want)
            core.deal_codes(d, g.players, g.seat, CARD_OF, n, got)
            deals += 1
        assert got == want
    assert deals > 500
    with pytest.raises(KeyError):
        core.deal_codes(decoded[0].deals[0], decoded[0].players, {}, CARD_OF, 3, columns())
