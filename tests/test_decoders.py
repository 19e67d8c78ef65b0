"""The fast decoder (msgspec) never accepts what the contract (pydantic) refuses, and agrees with it."""

from __future__ import annotations

import json
import os

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import game
from foreman_cli import records
from foreman_cli.generate import generate

BASE = [r for r, _ in generate(4, 5, max_deals=3)] + [game(stake="1.00", claimed={"winner": None})]

VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 20), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "x", "alice", "bob", "AS", "as", "10S", "TS", "1.00", "-1", "1e3", "foreman/1",
                     "9-5-2", "seed", "en", "2026-11-29T20:15:00Z", "2026-11-29", "A♠", "QX", "10s\n", "1.00\n"]),
    st.lists(st.sampled_from(["AS", "KD", "2C", "10H", "qs"]), max_size=4),
    st.dictionaries(st.sampled_from(["from", "to", "card", "returned", "id", "seq"]), st.just("x"), max_size=2),
)


def paths(obj, prefix=()):
    """Every place in a JSON value: (path, container, key)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield prefix + (k,), obj, k
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield prefix + (i,), obj, i
            yield from paths(v, prefix + (i,))


@st.composite
def mutated(draw):
    rec = json.loads(json.dumps(draw(st.sampled_from(BASE))))
    for _ in range(draw(st.integers(1, 3))):
        places = list(paths(rec))
        _, container, key = draw(st.sampled_from(places))
        action = draw(st.sampled_from(["set", "delete", "add"]))
        if action == "set":
            container[key] = draw(VALUES)
        elif action == "delete":
            del container[key]
        elif isinstance(container, dict):
            container[draw(st.sampled_from(["extra", "trick", "notes", "ext", "winner", "Stake"]))] = draw(VALUES)
        else:
            container.append(draw(VALUES))
    return json.dumps(rec, ensure_ascii=False)


def _decoders_agree(text: str) -> bool:
    """The fast decoder never accepts what the models refuse, and both give the same game.

    True when the record was read on the fast path and is a game.
    """
    try:
        records._whole_decoder().decode(text)
        fast_ok = True
    except msgspec.DecodeError:
        fast_ok = False
    got = records.decode(text)
    ref = records.decode_careful(text)
    if isinstance(ref, records.Invalid):
        assert isinstance(got, records.Invalid), "the fast path accepted a record the models refuse"
        assert (got.code, got.problems) == (ref.code, ref.problems)
    else:
        assert got == ref
    return fast_ok and not isinstance(got, records.Invalid)


@settings(max_examples=int(os.environ.get("FOREMAN_FUZZ_EXAMPLES", "400")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated())
def test_fast_decoder_is_never_looser_than_the_models(text):
    _decoders_agree(text)


def test_the_property_reaches_the_fast_path():
    # A test over mutations that never reached the fast decoder would prove nothing. Its own run
    # (seeded, 300 examples), so the count does not depend on which tests ran before.
    hits = {"fast": 0, "all": 0}

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(text=mutated())
    def count(text):
        hits["all"] += 1
        hits["fast"] += _decoders_agree(text)

    count()
    assert hits["all"] == 300 and hits["fast"] > 10, hits


def test_unmutated_records_take_the_fast_path_and_agree():
    for rec in BASE:
        text = json.dumps(rec)
        records._whole_decoder().decode(text)
        assert records.decode(text) == records.decode_careful(text)


def test_lone_surrogate_is_refused():
    import json as _json
    from builders import game
    from foreman_cli import records
    text = _json.dumps(game(id="s"))[:-1] + ', "notes": "\\ud800"}'
    for decode in (records.decode, records.decode_careful):
        r = decode(text)
        assert isinstance(r, records.Invalid) and r.code.code == "RECORD_SYNTAX"
        assert "lone surrogate" in r.problems[0].message
