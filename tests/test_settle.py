"""Settling bets: exact payouts, what is left out and why, the fewest transfers."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from builders import base_deal, game, run, run_many
from foreman_cli import money
from foreman_cli.cli import app
from foreman_cli.outcome import settle_game
from foreman_cli.results import DealResult
from foreman_cli.settle import EXACT_LIMIT, Settlement, fewest_transfers, settle

runner = CliRunner()

P = ("alice", "bob", "carol")


def deal(tricks, quotas=(8, 5, 3)):
    return DealResult(1, 0, quotas, list(tricks), sum(tricks), True)


def test_k1_and_k2_under_both_quotas():
    s = Decimal("1.00")
    # 8-5-3, alice dealt (8), bob L (5) wins, carol R (3) made quota: k = 1
    net, pays = settle_game(P, 1, deal([0, 12, 4]), s)
    assert net == {"alice": Decimal("-2.00"), "bob": Decimal("3.00"), "carol": Decimal("-1.00")}
    assert pays == [("alice", "bob", Decimal("2.00")), ("carol", "bob", Decimal("1.00"))]
    # k = 2
    net, _ = settle_game(P, 1, deal([2, 12, 2]), s)
    assert net["bob"] == Decimal("4.00")
    # 9-5-2: carol needs only 2
    net, _ = settle_game(P, 1, deal([2, 12, 2], (9, 5, 2)), s)
    assert net == {"alice": Decimal("-2.00"), "bob": Decimal("3.00"), "carol": Decimal("-1.00")}
    # the dealer wins: L short with 1 of 5, R not short with 3 of 3 under 8-5-3
    net, _ = settle_game(P, 0, deal([12, 1, 3]), Decimal("0.5"))
    assert net == {"alice": Decimal("1.5"), "bob": Decimal("-1.0"), "carol": Decimal("-0.5")}


def test_ledger_counts_clean_games_and_lists_the_rest():
    revoke = game([base_deal()], id="rv", stake="1.00", currency="GBP")
    revoke["deals"][0]["tricks"][0]["cards"][1] = "AH"  # carol plays bob's card
    unfinished = game([base_deal(tricks=4)], id="uf", stake="1.00", currency="GBP")
    free = game(id="free")
    gbp = game(id="g1", stake="1.00", currency="GBP")
    eur = game(id="e1", stake="0.125", currency="EUR")
    nocur = game(id="n1", stake="2")
    results = run_many([gbp, eur, nocur, revoke, unfinished, free, gbp])
    s = settle(results)
    assert [g.counted for g in s.games] == [True, True, True, False, False, False]  # the repeat is no game of it
    reasons = dict(s.excluded)
    assert reasons["rv"].startswith("disputed: deal 1, trick 1: carol played AH but did not hold it")
    assert reasons["uf"] == "unfinished: no money changes hands"
    assert reasons["free"] == "played for no stake"
    assert "g1" not in reasons and [r.id for r in s.repeats] == ["g1"]
    assert s.left_out == 1  # the disputed revoke; a repeat leaves nothing out
    assert s.balances == {
        "": {"alice": Decimal("-4"), "bob": Decimal("8"), "carol": Decimal("-4")},
        "EUR": {"alice": Decimal("-0.250"), "bob": Decimal("0.500"), "carol": Decimal("-0.250")},
        "GBP": {"alice": Decimal("-2.00"), "bob": Decimal("4.00"), "carol": Decimal("-2.00")},
    }
    assert {(t.payer, t.payee, money.fmt(t.amount), t.currency) for t in s.transfers} == {
        ("alice", "bob", "4", ""), ("carol", "bob", "4", ""),
        ("alice", "bob", "0.250", "EUR"), ("carol", "bob", "0.250", "EUR"),
        ("alice", "bob", "2.00", "GBP"), ("carol", "bob", "2.00", "GBP")}
    played = settle(results, as_played=True)
    assert played.balances["GBP"]["bob"] == Decimal("8.00")
    assert [g.reason for g in played.games if g.id == "rv"][0].startswith("counted as played despite")


def test_claim_mismatch_is_reported_and_the_rules_are_paid():
    rec = game(id="c1", stake="1.00", claimed={"winner": "bob", "payments": [
        {"from": "alice", "to": "bob", "amount": "1.00"}, {"from": "carol", "to": "bob", "amount": "2.00"}]})
    s = settle([run(rec)])
    line = s.games[0]
    assert line.counted and not line.disputed
    assert line.claim == ["the table wrote alice pays bob 1.00; the rules say alice pays bob 2.00 "
                          "(alice took 0 tricks, quota 8: short; carol took 0 tricks, quota 3: short)"]


def test_json_round_trips_and_csv():
    rec = game(id="c1", stake="1.00", currency="GBP")
    s = settle([run(rec)])
    again = Settlement.from_dict(json.loads(json.dumps(s.to_dict())))
    assert again == s and again.to_dict() == s.to_dict()


def test_cli_settle(tmp_path):
    p = tmp_path / "g.jsonl"
    p.write_text(json.dumps(game(id="c1", stake="1.00", currency="GBP")) + "\n")
    r = CliRunner().invoke(app, ["settle", str(p)])
    assert r.exit_code == 0, r.output
    assert "alice pays bob 2.00 GBP" in r.output and "carol pays bob 2.00 GBP" in r.output
    r = CliRunner().invoke(app, ["settle", "--csv", str(p)])
    assert r.output.splitlines() == ["from,to,amount,currency", "alice,bob,2.00,GBP", "carol,bob,2.00,GBP"]
    r = CliRunner().invoke(app, ["settle", "--json", str(p)])
    d = json.loads(r.output)
    assert set(d) >= {"games", "balances", "transfers", "excluded"}
    assert CliRunner().invoke(app, ["settle", "--json", "--csv", str(p)]).exit_code == 2


def test_settle_json_is_the_document_json_dumps_indents_whatever_the_names_hold(tmp_path):
    """--json is written as it goes, yet reads as json.dumps(indent=2) writes the whole document: a
    name with an accent, a quote, a backslash and an emoji kept as it is; an unreadable record's id
    with U+2028 and a control character, quoted in its reason among the excluded."""
    name = 'alicé "o\\ 😀'
    deal = json.loads(json.dumps(base_deal()).replace('"alice"', json.dumps(name)))
    p = tmp_path / "odd.jsonl"
    p.write_text(json.dumps(game([deal], id="g1", stake="1.00", players=[name, "bob", "carol"])) + "\n"
                 + json.dumps({"id": "broken\u2028\x1b"}) + "\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["settle", "--json", str(p)])
    doc = json.loads(r.stdout)
    assert [g["id"] for g in doc["games"]] == ["g1", "broken\u2028\x1b"] and doc["games"][0]["counted"]
    assert name in doc["games"][0]["net"] and doc["excluded"][0]["id"] == "broken\u2028\x1b"
    assert r.stdout == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _brute_min(bal):
    """The fewest transfers by trying every partition into zero-sum groups (small n only)."""
    names = [p for p, v in bal.items() if v != 0]
    n = len(names)
    best = 0

    def parts(items):
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        for k in range(len(rest) + 1):
            for combo in itertools.combinations(rest, k):
                group = [first, *combo]
                others = [x for x in rest if x not in combo]
                for p in parts(others):
                    yield [group, *p]

    for p in parts(names):
        if all(sum(bal[x] for x in g) == 0 for g in p):
            best = max(best, len(p))
    return n - best


balances_st = st.lists(st.integers(-500, 500), min_size=1, max_size=7).map(
    lambda xs: xs + [-sum(xs)]).map(lambda xs: {f"p{i}": Decimal(x).scaleb(-2) for i, x in enumerate(xs)})


@settings(max_examples=120, deadline=None)
@given(bal=balances_st)
def test_transfers_settle_exactly_and_are_fewest(bal):
    ts = fewest_transfers(bal)
    left = dict(bal)
    for a, b, v in ts:
        assert v > 0
        left[a] = money.add(left[a], v)
        left[b] = money.add(left[b], v.copy_negate())
    assert all(v == 0 for v in left.values())
    live = sum(1 for v in bal.values() if v != 0)
    assert len(ts) <= max(live - 1, 0)
    assert len(ts) == _brute_min(bal)


def test_many_players_use_the_greedy_method():
    bal = {f"p{i:02d}": Decimal(i + 1) for i in range(EXACT_LIMIT + 3)}
    bal["bank"] = -money.total(bal.values())
    ts = fewest_transfers(bal)
    assert len(ts) == len(bal) - 1 and all(a == "bank" for a, _, _ in ts)


def test_currency_codes_are_one_whatever_their_case_and_labels_stay_apart():
    games = [game(id="a", stake="1", currency="GBP"), game(id="b", stake="1", currency="gbp"),
             game(id="c", stake="1", currency="(none)"), game(id="d", stake="1")]
    s = settle(run_many(games))
    assert set(s.balances) == {"GBP", "(none)", ""}
    assert s.balances["GBP"]["bob"] == Decimal("8") and s.balances["(none)"]["bob"] == Decimal("4")
    assert run_many([games[1]])[0].to_dict()["currency"] == "GBP"
    assert run_many([game(id="e", stake="1", currency="chips")])[0].currency == "chips"  # a label as written


def _renamed(rec, old, new, gid):
    return json.loads(json.dumps(rec).replace(f'"{old}"', f'"{new}"').replace('"t-1"', f'"{gid}"'))


def test_one_name_written_two_ways_across_games_is_named_in_the_ledger_and_kept_apart(tmp_path):
    # 'Alice', 'alice' and a fullwidth 'ａlice' print alike: the ledger cannot merge them (they may be two
    # people) but must not let two debts of one person pass as two people's unremarked.
    recs = [game(stake="1.00", currency="GBP"), _renamed(game(stake="1.00", currency="GBP"), "alice", "Alice", "t-2"),
            _renamed(game(stake="1.00", currency="GBP"), "alice", "\uff41lice", "t-3")]  # a fullwidth a
    s = settle(run_many(recs))
    assert s.name_clashes == [["Alice", "alice", "\uff41lice"]]
    assert {"Alice", "alice", "\uff41lice"} <= set(s.balances["GBP"])  # kept apart
    assert Settlement.from_dict(json.loads(json.dumps(s.to_dict()))).name_clashes == s.name_clashes
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    out = CliRunner().invoke(app, ["settle", str(path)]).output
    assert "Names written two ways" in out and "Alice, alice and \uff41lice are one name" in out
    as_json = json.loads(CliRunner().invoke(app, ["settle", "--json", str(path)]).output)
    assert as_json["name_clashes"] == [["Alice", "alice", "\uff41lice"]]


def test_names_that_differ_once_case_is_set_aside_are_not_named():
    recs = [game(stake="1.00", currency="GBP"), _renamed(game(stake="1.00", currency="GBP"), "alice", "alicia", "t-2")]
    assert settle(run_many(recs)).name_clashes == []


def test_csv_transfers_say_on_stderr_what_they_leave_out(tmp_path):
    first = game(id="g1", stake="1.00", currency="GBP")
    other = game(id="g1", stake="5.00", currency="GBP")
    p = tmp_path / "evening.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in [first, {"format": "foreman/1", "id": "torn"}, other]))
    r = runner.invoke(app, ["settle", "--csv", str(p)])
    assert r.exit_code == 1 and r.stdout.splitlines()[0] == "from,to,amount,currency"
    assert ("the transfers leave out 1 game (disputed or invalid) and rest on the first record of 1 game "
            "read again as another record") in r.stderr, r.stderr
    # Near miss: the same record twice leaves nothing out, and the CSV goes alone.
    p.write_text(json.dumps(first) + "\n" + json.dumps(first) + "\n")
    r = runner.invoke(app, ["settle", "--csv", str(p)])
    assert r.exit_code == 0 and r.stderr == "" and len(r.stdout.splitlines()) == 3


def test_a_game_read_again_with_other_content_puts_the_settlement_in_doubt(tmp_path):
    first = game(id="g1", stake="1.00", currency="GBP")
    other = game(id="g1", stake="1.00", currency="GBP", notes="written up again the next day")
    (tmp_path / "a.jsonl").write_text(json.dumps(first) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps(other) + "\n")
    (tmp_path / "c.jsonl").write_text(json.dumps(first) + "\n")
    differing = runner.invoke(app, ["settle", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")])
    assert differing.exit_code == 1 and "(a different record)" in differing.output
    assert "its first record stands" in differing.output
    as_json = runner.invoke(app, ["settle", "--json", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")])
    repeats = json.loads(as_json.output)["repeats"]
    assert as_json.exit_code == 1 and [(r["identical"], r["same_record"]) for r in repeats] == [(False, False)]
    same = runner.invoke(app, ["settle", str(tmp_path / "a.jsonl"), str(tmp_path / "c.jsonl")])  # the same record twice
    assert same.exit_code == 0 and "(identical)" in same.output and "first record stands" not in same.output
    assert differing.output.split("Balances")[1] == same.output.split("Balances")[1]  # the first copy counts either way


def test_a_game_read_again_after_an_invalid_first_record_is_not_said_to_be_counted(tmp_path):
    torn = game(id="g1", stake="1.00", currency="GBP")
    torn["players"] = ["alice", "bob", "alice"]
    fair = game(id="g1", stake="1.00", currency="GBP")
    (tmp_path / "a.jsonl").write_text(json.dumps(torn) + "\n" + json.dumps(fair) + "\n")
    r = runner.invoke(app, ["settle", str(tmp_path / "a.jsonl")], env={"COLUMNS": "200"})
    assert r.exit_code == 1 and "g1: invalid record" in r.output and "(a different record)" in r.output
    assert "its first record stands" in r.output and "counted;" not in r.output


def test_a_record_without_an_id_is_named_by_where_it_is(tmp_path):
    """'(no id)' alone cannot be found among many files: the ledger names such a record by its
    file and line; a record with an id is named by its id alone."""
    p = tmp_path / "evening.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in [game(id="g1"), {"format": "foreman/1", "players": ["a"]},
                                                        {"format": "foreman/1", "id": "torn"}]))
    out = runner.invoke(app, ["settle", str(p)]).stdout
    left_out = out.split("Left out of the balances")[1].splitlines()
    assert f"  {p}:2 (no id): invalid record: $.id: required field is missing" in left_out, out
    assert any(line.startswith("  torn: invalid record") for line in left_out), out
    assert f"{p}:3" not in out and f"{p}:1" not in out
