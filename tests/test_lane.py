"""The fast lane (lane.py) against the reference, the full Python path: a record the lane takes gives
the same line of `validate --json`, byte for byte, on generated, injected and mutated records."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foreman_cli import audit, core, lane, records
from foreman_cli.cards import CARD_OF
from foreman_cli.generate import INJECTABLE, generate
from foreman_cli.reader import RawRecord
from foreman_cli.rules import CHOICES, HouseRules

_core = core._core
need_c = pytest.mark.skipif(_core is None, reason="the compiled core is not built (or FOREMAN_PURE=1)")
NAMES = ["Björn", "ann", 'o"neil', "zoë"]


def _rules(seed: int) -> HouseRules:
    rnd = random.Random(seed)
    return HouseRules(**{k: rnd.choice(v) for k, v in CHOICES.items()}, target=rnd.choice([12, 12, 10, 14]))


def _write(rec: dict, n: int) -> str:
    """A record as JSON in one of several spellings: compact or spaced, escaped or UTF-8, keys in order or not."""
    if n % 5 == 3:
        rec = dict(reversed(list(rec.items())))  # deals before players: the lane leaves it
    if n % 4 == 1:
        return json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
    if n % 4 == 2:
        return json.dumps(rec, indent=1 if n % 8 == 2 else None)
    return json.dumps(rec, separators=(",", ":"))


def _texts() -> list[str]:
    out = []
    n = 0
    for k in range(10):
        players = None if k % 3 else [NAMES[k % 4], "bob", "carl"]
        for rec, _ in generate(12, 700 + k, rules=_rules(k), max_deals=12, claims=0.15 if k % 2 else 0,
                               series_size=3 if k % 4 == 0 else 0, players=players):
            out.append(_write(rec, n))
            n += 1
    for k, code in enumerate(INJECTABLE):
        for rec, _ in generate(4, 900 + k, inject=code, rules=_rules(40 + k), max_deals=4):
            out.append(_write(rec, n))
            n += 1
    return out + _played_alone(n)


def _played_alone(n: int) -> list[str]:
    """Records of the play (foreman/1.2), some with `left`, a claim or two cards of a deal swapped
    (revokes shown by a later card, leads out of turn), and some wrongly saying foreman/1."""
    from foreman_cli.generate import as_seen
    rnd, out = random.Random(5), []
    for k, (rec, _) in enumerate(generate(100, 950, rules=_rules(60), max_deals=8, claims=0.02, stacked=0.3)):
        seen = as_seen(rec, {dn: k % 7 == 0 and dn == 1 for dn in range(1, len(rec["deals"]) + 1)})
        if k % 5 == 1:
            seen["format"] = "foreman/1"  # a deal without its hands must be foreman/1.2: RECORD_SCHEMA
        if k % 3 == 2:
            _swap_followers(seen["deals"][-1], rnd)
        out.append(_write(seen, n + k))
    return out


def _swap_followers(deal: dict, rnd: random.Random) -> None:
    """Swap two followers' cards between two tricks of a deal where both tricks keep their winners:
    a player may then show out of a suit he plays later (a revoke the tricks prove)."""
    from foreman_cli.board import trick_winner
    tricks = [t["cards"] for t in deal["tricks"] if len(t["cards"]) == 3]
    places = [(j, i) for j in range(len(tricks)) for i in (1, 2)]
    for _ in range(30):
        (j1, i1), (j2, i2) = rnd.sample(places, 2)
        if j1 == j2:
            continue
        before = [trick_winner(0, [CARD_OF[c] for c in tricks[j]]) for j in (j1, j2)]
        tricks[j1][i1], tricks[j2][i2] = tricks[j2][i2], tricks[j1][i1]
        if [trick_winner(0, [CARD_OF[c] for c in tricks[j]]) for j in (j1, j2)] == before:
            return
        tricks[j1][i1], tricks[j2][i2] = tricks[j2][i2], tricks[j1][i1]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts()


def _line(res) -> tuple:
    g = audit.game_line(res)
    return g.line, g.facts, g.fingerprint, g.codes, g.errors, g.series


@need_c
def test_the_lane_takes_some_records_and_leaves_others_to_the_full_path(texts):
    taken = sum(lane.result(t, "x:1", None, audit.fingerprint) is not None for t in texts)
    assert len(texts) // 10 < taken < len(texts)  # both answers are exercised
    with pytest.raises(ValueError):
        _core.lane_replay(b"\0" * (lane.BLOCK - 1), True, True, 12, False)


@pytest.mark.parametrize("overrides", [None, {"target": 10}, {"return_rule": "higher", "deal_rotation": "free"}])
def test_a_record_the_lane_takes_gives_the_full_paths_line(texts, overrides, monkeypatch):
    taken = 0
    clean_deal = core.clean_deal
    for i, t in enumerate(texts):
        raw = RawRecord("games.jsonl", i + 1, t)
        fast = lane.result(t, raw.where, overrides, audit.fingerprint)
        monkeypatch.setattr(core, "clean_deal", None)  # the reference: every deal replayed in Python
        full = audit.check_record(raw, overrides)
        monkeypatch.setattr(core, "clean_deal", clean_deal)
        if fast is not None:
            taken += 1
            assert _line(fast) == _line(full), t[:200]
            assert fast.data is None and full.data is not None
        assert _line(audit.check_record(raw, overrides, fast=True, keep=False)) == _line(full)
    if _core is not None:
        assert taken > 15  # of 188: the kitty under pickup, claims, keys out of order and a lower target go the full way
    else:
        assert taken == 0  # without the core every record takes the full path


def _plain() -> str:
    """A game won with nothing amiss, a name in it escaped."""
    for rec, _ in generate(20, 7, players=["Björn", "ann", "carl"]):
        t = json.dumps(rec)
        r = audit.check_record(RawRecord("x", 1, t))
        if r.status == "won" and not r.findings:
            return t
    raise AssertionError("no plain game")


_PLAIN = _plain()


@need_c
def test_the_lane_takes_a_plain_record_and_leaves_what_is_not():
    assert lane.result(_PLAIN, "x:1", None, audit.fingerprint) is not None
    rec = json.loads(_PLAIN)
    stranger = json.loads(_PLAIN)
    stranger["deals"][0]["hands"]["zed"] = stranger["deals"][0]["hands"].pop("ann")
    twice = _PLAIN[:-1] + ', "deals": ' + json.dumps(rec["deals"]) + "}"
    claimed = json.loads(_PLAIN)
    claimed["format"] = "foreman/1.1"
    claimed["deals"][-1]["claim"] = {"by": "ann", "accepted": True}
    alone = records_of_the_play(rec)
    assert lane.result(json.dumps(alone), "x:1", None, audit.fingerprint) is not None
    assert lane.result(json.dumps(alone), "x:1", None, audit.fingerprint, keep=True) is None  # the archive's
    from foreman_cli.archive import code_column
    with pytest.raises(ValueError, match="records its play alone"):
        _core.lane_codes(_core.lane_scan(json.dumps(alone), CARD_OF)[1], 0, 0, [code_column() for _ in range(9)])
    for t in (json.dumps(stranger), twice, json.dumps(claimed), _PLAIN.replace('"2S"', '"2s"'),
              json.dumps({**alone, "format": "foreman/1"}),
              _PLAIN.replace('"players"', '"players" ', 1).replace('"id"', '"ext": {"a": NaN}, "id"', 1),
              _PLAIN.replace('"id"', '"ext": {"a": 1\u00b2}, "id"', 1)):  # a digit to str.isdigit, not to JSON
        assert lane.result(t, "x:1", None, audit.fingerprint) is None


def records_of_the_play(rec: dict) -> dict:
    from foreman_cli.generate import as_seen
    return as_seen(rec, {dn: False for dn in range(1, len(rec["deals"]) + 1)})


_CHARS = list('"\\,:{}[] 0123456789-+.eEuSHDCA\n\t\x01ébnrt/²') + ["true", "null", "\\u00e9", "\\ud800", "10", '"ext":1²,']


@need_c
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0, 1), st.sampled_from(["insert", "delete", "replace"]), st.sampled_from(_CHARS)),
                min_size=1, max_size=3))
def test_a_mutated_record_reads_alike_on_both_paths(edits):
    t = _PLAIN
    for where, op, s in edits:
        i = int(where * len(t))
        t = t[:i] + ("" if op == "delete" else s) + t[i + (op != "insert"):]
    raw = RawRecord("m.jsonl", 1, t)
    assert _line(audit.check_record(raw, fast=True)) == _line(audit.check_record(raw))


@need_c
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(0, 320), st.integers(0, 320))
def test_the_compiled_line_count_answers_as_the_reference(data, a, b):
    from foreman_cli import chunks
    start, end = min(a, b), max(a, b)
    assert _core.count_lines(data, start, end) == chunks.count_lines(data, start, end)
    assert _core.count_lines(bytearray(data), start, end) == chunks.count_lines(bytearray(data), start, end)


@need_c
def test_the_archive_codes_from_the_lanes_blocks_are_those_of_the_decoded_deals(texts):
    from foreman_cli import archive as store

    def columns():
        return [store.code_column() for _ in range(9)]
    deals = 0
    for t in texts:
        scanned = _core.lane_scan(t, CARD_OF)
        if scanned is None or scanned[2]:  # a record of the play's blocks are never stored
            continue
        blocks = scanned[1]
        g = records.decode(t)
        seats = {p: s for s, p in enumerate(g.players)}
        want, got = columns(), columns()
        for i, deal in enumerate(g.deals):
            n = max(len(deal.tricks) - deals % 2, 0)  # every trick, or all but the last
            store.deal_codes(deal, g.players, seats, CARD_OF, n, want)
            _core.lane_codes(blocks, i, n, got)
            deals += 1
        assert got == want
    assert deals > 200
    for bad in ((len(blocks) // lane.BLOCK, 0), (0, 17)):
        with pytest.raises(IndexError):
            _core.lane_codes(blocks, *bad, columns())


def _shuffled(value, rnd: random.Random):
    """The same JSON value with every object's keys in another order."""
    if isinstance(value, dict):
        items = list(value.items())
        rnd.shuffle(items)
        return {k: _shuffled(v, rnd) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rnd) for v in value]
    return value


_RECORDS = [rec for k in range(3) for rec, _ in generate(3, 40 + k, rules=_rules(60 + k), max_deals=6,
                                                         players=[NAMES[k], "bob", "carl"])]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_RECORDS) - 1), st.integers(0, 2**32), st.sampled_from([None, 0, 2]),
       st.booleans(), st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " :\n")]))
def test_a_record_in_any_key_order_and_spacing_reads_alike_on_both_paths(i, seed, indent, ascii_only, seps):
    t = json.dumps(_shuffled(_RECORDS[i], random.Random(seed)), indent=indent, ensure_ascii=ascii_only,
                   separators=seps if indent is None else None)
    raw = RawRecord("k.jsonl", 1, t)
    assert _line(audit.check_record(raw, fast=True, keep=False)) == _line(audit.check_record(raw))
