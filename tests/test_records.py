"""The record format: what foreman/1 accepts, what it refuses and how it says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import clone, codes, game, run
from foreman_cli import cards as C
from foreman_cli import records

SCHEMA_FILE = Path(__file__).parent.parent / "schemas" / "foreman-1.schema.json"


def schema_errors(rec):
    r = run(rec)
    assert r.status == "invalid", [f.text() for f in r.findings]
    return [(f.code, f.path, f.message) for f in r.findings]


def test_committed_schema_matches_the_models():
    assert json.loads(SCHEMA_FILE.read_text()) == records.json_schema(), "run `make schema`"


def test_card_tokens_every_spelling():
    t = C.EN_TOKENS
    assert C.parse_token("10S", t) == C.parse_token("10s", t) == C.parse_token("10♠", t) == C.card("10S")
    assert C.parse_token("qh", t) == C.card("QH")
    assert C.CANONICAL[C.card("AD")] == "AD" and len(set(C.CANONICAL)) == 52
    s = C.SEED_TOKENS
    assert [C.CANONICAL[C.parse_token(x, s)] for x in ("BS", "DH", "KD", "TC", "10C")] == ["JS", "QH", "KD", "AC", "10C"]
    assert C.parse_token("TS", t) is None and C.parse_token("QS", s) is None


def test_ten_as_t_is_refused_with_advice():
    rec = game()
    rec["deals"][0]["kitty"][0] = "TS"
    (code, path, msg), = schema_errors(rec)
    assert (code, path) == ("RECORD_SCHEMA", "$.deals[0].kitty[0]")
    assert "'10S' for the ten or 'AS' for the ace" in msg and "card_notation" in msg


def test_seed_notation_record():
    rec = game(card_notation="seed")
    rename = {"J": "B", "Q": "D", "A": "T"}
    text = json.dumps(rec)
    for old, new in rename.items():
        for s in "SHDC":
            text = text.replace(f'"{old}{s}"', f'"{new}{s}"')
    r = run(text)
    assert r.status == "won" and codes(r) == []
    bad = json.loads(text)
    bad["deals"][0]["kitty"][0] = "QS"
    (_, path, msg), = schema_errors(bad)
    assert "write 'DS'" in msg


@pytest.mark.parametrize("mutate,path,words", [
    (lambda r: r.update(extra=1), "$.extra", "unknown field"),
    (lambda r: r["deals"][0].update(trick=[]), "$.deals[0].trick", "unknown field"),
    (lambda r: r.pop("players"), "$.players", "required field is missing"),
    (lambda r: r["deals"][0].pop("discards"), "$.deals[0].discards", "write \"format\": \"foreman/1.2\""),
    (lambda r: r["deals"][0].update(hands=None), "$.deals[0].hands", "write \"format\": \"foreman/1.2\""),
    (lambda r: r["deals"][0].update(left={"alice": [], "bob": [], "carol": []}), "$.deals[0].left", "foreman/1.2"),
    (lambda r: r["deals"][0].pop("tricks"), "$.deals[0].tricks", "required field is missing"),
    (lambda r: r.update(stake=1.0), "$.stake", "string"),
    (lambda r: r.update(stake="-1.00"), "$.stake", "amount"),
    (lambda r: r.update(stake="1e3"), "$.stake", "amount"),
    (lambda r: r.update(format="foreman/2"), "$.format", "foreman/1"),
    (lambda r: r.update(id="has space"), "$.id", "id"),
    (lambda r: r.update(id=7), "$.id", "string"),
    (lambda r: r.update(players=["a", "b", "a"]), "$.players", "distinct names: 'a' is written twice"),
    (lambda r: r.update(players=["a", "b"]), "$.players", "3"),
    (lambda r: r.update(rules={"quota": None}), "$.rules.quota", ""),
    (lambda r: r.update(rules={"target": "12"}), "$.rules.target", "integer"),
    (lambda r: r.update(rules={"target": 17}), "$.rules.target", "16"),
    (lambda r: r.update(rules={"target": 12.0}), "$.rules.target", "integer"),
    (lambda r: r.update(series={"id": "x", "seq": 0}), "$.series.seq", "1"),
    (lambda r: r.update(played_at="yesterday"), "$.played_at", "ISO 8601"),
    (lambda r: r["deals"][0].update(dealer="zoe"), "$.deals[0].dealer", "not one of the players"),
    (lambda r: r["deals"][0]["tricks"][0].update(leader="zoe"), "$.deals[0].tricks[0].leader", "not one of"),
    (lambda r: r["deals"][0]["hands"].pop("bob"), "$.deals[0].hands", "no hand for player 'bob'"),
    (lambda r: r["deals"][0]["tricks"][0]["cards"].__setitem__(1, "1S"), "$.deals[0].tricks[0].cards[1]", "card"),
    (lambda r: r["deals"][0]["tricks"][0]["cards"].__setitem__(1, "QX"), "$.deals[0].tricks[0].cards[1]", "card"),
    (lambda r: r.update(claimed={"payments": [{"from": "bob", "to": "bob", "amount": "1"}]}),
     "$.claimed.payments[0]", "himself"),
    (lambda r: r.update(claimed={"tricks": {"zoe": 1}}), "$.claimed.tricks['zoe']", "not one of"),
    (lambda r: r.update(deals=[]), "$.deals", "at least 1"),
    (lambda r: r.update(stake="1" * 41), "$.stake", "must have at most 40 characters, got '1111"),
    (lambda r: r.update(currency=""), "$.currency", "must have at least 1 character, got ''"),
])
def test_schema_refusals_name_the_field(mutate, path, words):
    rec = clone(game())
    mutate(rec)
    errs = schema_errors(rec)
    assert any(p == path and words in m for _, p, m in errs), errs
    assert all(c == "RECORD_SCHEMA" for c, _, _ in errs)


@pytest.mark.parametrize("mutate,path,message", [
    (lambda r: r.update(deals=[]), "$.deals", "needs at least 1 item, got 0"),
    (lambda r: r.update(players=["a", "b"]), "$.players", "needs at least 3 items, got 2"),
    (lambda r: r.update(players=["a", "b", "c", "d"]), "$.players", "needs at most 3 items, got 4"),
    (lambda r: r["deals"][0].update(discards=["2C"] * 60), "$.deals[0].discards", "needs at most 52 items, got 60"),
])
def test_a_list_of_the_wrong_length_is_told_in_words(mutate, path, message):
    rec = clone(game())
    mutate(rec)
    assert (path, f"{path}: {message}") in [(p, m) for _, p, m in schema_errors(rec)]


@pytest.mark.parametrize("mutate,path,message", [
    (lambda r: r.update(format="foreman/9"), "$.format",
     "must be 'foreman/1', 'foreman/1.1' or 'foreman/1.2', got 'foreman/9'"),
    (lambda r: r.update(rules={"quota": [8, 5, 2]}), "$.rules.quota", "must be '8-5-3' or '9-5-2', got [8, 5, 2]"),
    (lambda r: r.update(rules={"target": True}), "$.rules.target", "must be a valid integer, got true"),
    (lambda r: r.update(rules={"kitty": "nope"}), "$.rules.kitty", "must be 'swap' or 'pickup', got 'nope'"),
    (lambda r: r.update(rules={"quota": {"note": "x" * 50}}), "$.rules.quota", "must be '8-5-3' or '9-5-2'"),
])
def test_a_value_of_the_wrong_kind_is_quoted_as_the_record_wrote_it(mutate, path, message):
    """A list, an object and true are quoted in JSON, a string as any other; a long one is not quoted."""
    rec = clone(game())
    mutate(rec)
    assert (path, f"{path}: {message}") in [(p, m) for _, p, m in schema_errors(rec)]


def test_nulls_for_optional_fields_mean_absent():
    rec = game(played_at=None, series=None, rules=None, stake=None, currency=None, claimed=None, notes=None,
               ext=None, card_notation=None)
    assert codes(run(rec)) == []


def test_ext_is_kept_and_never_checked():
    assert codes(run(game(ext={"anything": [1, {"deep": None}], "x": 1.5}))) == []


def test_lengths_are_rules_not_schema():
    rec = game()
    rec["deals"][0]["kitty"] = []
    rec["deals"][0]["passes"] = []
    r = run(rec)
    assert r.status != "invalid" and "DEAL_SIZE" in codes(r) and "PASS_SEQUENCE" in codes(r)


def test_played_at_accepts_iso_forms():
    for v in ("2026-11-29T20:15:00+00:00", "2026-11-29T20:15:00Z", "2026-11-29 20:15"):
        assert run(game(played_at=v)).status == "won"


def test_the_schema_says_what_json_schema_can_say():
    """Distinct players, a claim only from format 1.1 on, and a deal without its hands or with `left`
    only in 1.2 are in the generated JSON Schema too."""
    from foreman_cli.models import json_schema
    schema = json_schema()
    assert schema["properties"]["players"]["uniqueItems"] is True
    by_format = {json.dumps(rule["if"]["properties"]["format"]): rule["then"]["properties"]["deals"]["items"]
                 for rule in schema["allOf"]}
    assert by_format['{"const": "foreman/1"}'] == {"not": {"required": ["claim"]}}
    older = by_format['{"enum": ["foreman/1", "foreman/1.1"]}']
    assert set(older["required"]) == {"hands", "kitty", "passes", "discards"}
    assert older["not"] == {"required": ["left"]}
    assert "foreman/1.2" in schema["properties"]["format"]["enum"]


@pytest.mark.parametrize("names,said", [
    (["Jos\u00e9", "Jose\u0301", "carol"], "one name once Unicode forms and case are set aside"),
    (["alice", "Alice", "carol"], "one name once Unicode forms and case are set aside"),
    (["alice", "bob ", "carol"], "begins or ends with a space"),
    (["al\u200dice", "bob", "carol"], "invisible or control character '\\u200d'"),
    (["alice", "b\nob", "carol"], "invisible or control character '\\n'"),
    (["alice", "bo\x07b", "carol"], "invisible or control character '\\x07'"),
])
def test_names_a_reader_could_not_tell_apart_are_refused(names, said):
    rec = game(id="names")
    text = json.dumps(rec)
    for old, new in zip(rec["players"], names):
        text = text.replace(json.dumps(old), json.dumps(new))
    res = run(text)
    assert res.status == "invalid" and res.findings[0].code == "RECORD_SCHEMA"
    assert said in res.findings[0].message and res.findings[0].path == "$.players"


def test_names_that_only_look_foreign_are_fine():
    """The near misses: accents written one way, names that differ by more than case."""
    rec = game(id="names")
    text = json.dumps(rec)
    for old, new in zip(rec["players"], ["Bj\u00f6rn", "Jos\u00e9", "Kim Lee"]):
        text = text.replace(json.dumps(old), json.dumps(new))
    assert run(text).status != "invalid"


@pytest.mark.parametrize("field,value", [("currency", "G\nBP"), ("currency", "euro\t"), ("series", {"id": "fri\x1b[2J", "seq": 1})])
def test_labels_views_print_inline_hold_no_layout_or_control_characters(field, value):
    res = run(game(id="label", stake="1.00", **{field: value}))
    assert res.status == "invalid" and res.findings[0].code == "RECORD_SCHEMA"
    assert res.findings[0].path.startswith(f"$.{field}") and "which a view would not print as itself" in res.findings[0].message


@pytest.mark.parametrize("field,value", [("currency", " GBP"), ("currency", "chips "),
                                         ("series", {"id": "friday ", "seq": 1})])
def test_a_label_with_a_space_at_either_end_is_refused_as_it_would_print_as_another(field, value):
    res = run(game(id="label", stake="1.00", **{field: value}))
    assert res.status == "invalid" and res.findings[0].code == "RECORD_SCHEMA"
    assert res.findings[0].path.startswith(f"$.{field}") and "begins or ends with a space" in res.findings[0].message
    assert run(game(id="label", stake="1.00", currency="poker chips")).status != "invalid"  # a space inside is fine


def test_a_label_in_another_script_is_fine():
    assert run(game(id="label", stake="1.00", currency="\u20ac", series={"id": "vendredi-\u00e9t\u00e9", "seq": 1})).status != "invalid"
