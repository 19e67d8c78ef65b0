"""foreman analyze: sure tricks, best cards and costs (docs/analysis.md), through the library and the CLI."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from builders import base_deal, game, run
from foreman_cli import analysis, core
from foreman_cli.board import Board
from foreman_cli.cards import CARD_OF
from foreman_cli.cli import app
from foreman_cli.engine import position_at

runner = CliRunner()


def write(tmp_path, rec) -> str:
    p = tmp_path / "g.json"
    p.write_text(json.dumps(rec))
    return str(p)


def test_base_deal_is_sure_from_the_first_trick_and_every_card_is_free():
    # bob (L) leads twelve hearts no one else holds: sure of 12 before the first card.
    a = analysis.analyze_game(run(game()))
    d = a.deals[0]
    assert d.exact and d.turned == (1, 1)
    assert all(p.sure_before[1] == 12 and p.cost == 0 for p in d.plays)
    assert d.player_totals(1) == (12, 0, 1.0)


def test_a_costly_card_costs_what_the_solver_says():
    deal = base_deal(tricks=8)
    # bob leads his lone diamond instead of a heart: carol wins it and leads diamonds.
    deal["tricks"].append({"leader": "bob", "cards": ["2D", "10D", "JS"]})
    res = run(game([deal]))
    p = next(p for p in analysis.analyze_game(res).deals[0].plays if p.trick == 9 and p.seat == 1)
    pos = position_at(res.data, 1, 9)
    b = Board([sum(1 << c for c in h) for h in pos.hands], 1, pos.tricks, 8, 12)
    b.play(CARD_OF["2D"])
    after = core.SureTricks(1, b, pure=True).sure(b)
    assert p.sure_before[1] == 12 and p.cost == 12 - after > 0
    assert CARD_OF["2D"] not in p.best and CARD_OF["6H"] in p.best


def test_cost_zero_exactly_when_the_card_is_among_the_best():
    from foreman_cli.generate import generate
    for rec, _ in generate(3, 11, max_deals=2):
        res = run(rec)
        for d in analysis.analyze_game(res, from_trick=11).deals:
            for p in d.plays:
                assert p.cost is not None and p.cost >= 0
                assert (p.cost == 0) == (p.card in p.best)


def test_analyze_json_has_the_documented_shape(tmp_path):
    res = runner.invoke(app, ["analyze", write(tmp_path, game()), "--json", "--from-trick", "10"])
    assert res.exit_code == 0, res.output
    g = json.loads(res.output)
    assert set(g) == {"id", "source", "deals"}
    d = g["deals"][0]
    assert {"deal", "from_trick", "exact", "plays", "players", "turned"} <= set(d)
    assert d["from_trick"] == 10 and d["exact"] is True
    assert d["plays"][0] == {"trick": 10, "player": "bob", "card": "5H",
                             "sure_before": {"alice": 0, "bob": 12, "carol": 0}, "best": d["plays"][0]["best"], "cost": 0}
    assert d["players"]["bob"] == {"cards": 3, "cost": 0, "accuracy": 1.0,
                                   "par": None, "gifts": None, "luck": None, "tricks": None}  # analysed in part
    assert d["turned"] is None  # sure from trick 10 on: it may have turned before the span analysed


def test_an_exhausted_budget_is_reported_as_not_solved(tmp_path):
    from foreman_cli.generate import generate
    (rec, _), = generate(1, 5, stacked=0.0, max_deals=1)
    res = runner.invoke(app, ["analyze", write(tmp_path, rec), "--json", "--budget", "0"])
    d = json.loads(res.output)["deals"][0]
    assert res.exit_code == 0 and d["exact"] is False
    first = d["plays"][0]
    assert first["cost"] is None and first["best"] is None and None in first["sure_before"].values()


def test_analyze_view_and_errors(tmp_path):
    path = write(tmp_path, game())
    res = runner.invoke(app, ["analyze", path, "--from-trick", "11"])
    assert res.exit_code == 0 and "bob: 2 cards analysed, 0 tricks lost, accuracy 100.0%" in res.output
    res = runner.invoke(app, ["analyze", path, "--from-trick", "13"])  # bob won the game at trick 12
    assert res.exit_code == 0 and "nothing analysed: no card was played from trick 13 on" in res.output
    res = runner.invoke(app, ["analyze", path, "--game", "nope"])
    assert res.exit_code == 2 and "no game 'nope'" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "foreman/1"}')
    assert runner.invoke(app, ["analyze", str(bad)]).exit_code == 1


def test_analysis_stops_at_a_breach_of_play(tmp_path):
    deal = base_deal(tricks=12)
    deal["tricks"][3]["cards"][1] = "AC"  # carol plays a club she does not hold
    d = analysis.analyze_game(run(game([deal]))).deals[0]
    assert d.stopped == "trick 4: AC was not a legal card" and max(p.trick for p in d.plays) == 3


def test_a_deal_in_which_two_hands_hold_one_card_is_not_analysed(tmp_path):
    deal = base_deal()
    deal["passes"][0]["card"] = "AS"  # the kitty's AS passed (PASS_NOT_HELD): carol holds it, alice too after the kitty
    d = analysis.analyze_game(run(game([deal]))).deals[0]
    assert not d.plays and d.stopped == "two hands hold AS", d
    res = runner.invoke(app, ["analyze", write(tmp_path, game([deal]))])
    assert res.exit_code == 0 and "nothing analysed: two hands hold AS" in res.output, res.output
    legal = analysis.analyze_game(run(game([base_deal()]))).deals[0]  # nearly: the pass as dealt
    assert legal.plays and legal.stopped is None


def test_analysis_spread_over_workers_gives_the_same_output_in_input_order(tmp_path):
    from foreman_cli.generate import generate
    games = [rec for rec, _ in generate(3, 11, stacked=0.0, max_deals=2)]
    lines = [json.dumps(games[0]), '{"format": "foreman/1"}', json.dumps(games[1]), json.dumps(games[2])]
    path = tmp_path / "evening.jsonl"
    path.write_text("\n".join(lines) + "\n")
    outputs = [runner.invoke(app, ["analyze", str(path), "--json", "--from-trick", "12", "--jobs", j])
               for j in ("1", "2")]
    assert [o.exit_code for o in outputs] == [1, 1]  # the broken record is said, the others analysed
    assert outputs[0].stdout == outputs[1].stdout
    objects = [json.loads(line) for line in outputs[1].stdout.splitlines()]
    assert [o["source"].rsplit(":", 1)[1] for o in objects] == ["1", "2", "3", "4"]
    analysed = [objects[0], objects[2], objects[3]]
    assert [o["id"] for o in analysed] == [g["id"] for g in games]
    assert [len(o["deals"]) for o in analysed] == [len(g["deals"]) for g in games]


def _analysed(seed: int, target: int, claims: float):
    """The analyses of one generated game played to a small target (whole deals solve in moments)."""
    from foreman_cli.generate import generate
    from foreman_cli.rules import HouseRules
    (rec, _), = generate(1, seed, rules=HouseRules(target=target), max_deals=3, stacked=0.0, claims=claims)
    res = run(rec)
    return res, analysis.analyze_game(res)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), target=st.integers(2, 5), claims=st.sampled_from([0.0, 1.0]))
def test_every_analysed_deal_splits_its_tricks_into_par_cost_and_gifts(seed, target, claims):
    res, a = _analysed(seed, target, claims)
    for d, played in zip(a.deals, res.deals):
        assert d.split is not None, (seed, d.deal, d.stopped)
        claimed = played.claim is not None and played.tricks_played > len(res.data.deals[d.deal - 1].tricks)
        for s, sp in enumerate(d.split):
            assert sp.tricks == played.tricks[s] and sp.quota == played.quotas[s]
            assert sp.tricks == sp.par - sp.cost + sp.gifts + (sp.claim or 0)  # the identity
            assert sp.gifts >= 0 and sp.cost == sum(p.cost for p in d.plays if p.seat == s)
            assert sp.par == d.plays[0].sure_before[s] if d.plays else True
            assert sp.luck == sp.par - sp.quota and sp.skill == -sp.cost
            assert (sp.claim is not None) == claimed


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), breach=st.sampled_from(["DEAL_DUPLICATE", "PASS_NOT_HELD", "RETURN_NOT_HELD"]))
def test_a_breach_that_puts_a_card_in_two_hands_is_never_analysed_as_a_deck(seed, breach):
    from foreman_cli.generate import generate
    from foreman_cli.rules import HouseRules
    (rec, _), = generate(1, seed, inject=breach, rules=HouseRules(target=4), max_deals=2, stacked=0.0)
    res = run(rec)
    for d, played in zip(analysis.analyze_game(res).deals, res.deals):
        dealt = position_at(res.data, d.deal, 1).hands
        shared = set(dealt[0]) & set(dealt[1]) | set(dealt[0]) & set(dealt[2]) | set(dealt[1]) & set(dealt[2])
        copies = any(len(set(hand)) < len(hand) for hand in dealt)
        if shared and not copies:
            assert not d.plays and d.stopped.startswith("two hands hold "), (seed, d.deal)
        elif not shared and not copies and d.split is not None:  # a deck: the identity holds
            assert all(sp.tricks == sp.par - sp.cost + sp.gifts + (sp.claim or 0) for sp in d.split)


def test_a_deal_analysed_in_part_has_no_split(tmp_path):
    res = runner.invoke(app, ["analyze", write(tmp_path, game()), "--json", "--from-trick", "10"])
    players = json.loads(res.output)["deals"][0]["players"]
    assert players["bob"]["par"] is None and players["bob"]["luck"] is None and "claim" not in players["bob"]
    whole = runner.invoke(app, ["analyze", write(tmp_path, game()), "--json"])
    bob = json.loads(whole.output)["deals"][0]["players"]["bob"]
    assert bob["tricks"] == bob["par"] - bob["cost"] + bob["gifts"] and bob["luck"] == bob["par"] - run(game()).deals[0].quotas[1]
    text = runner.invoke(app, ["analyze", write(tmp_path, game())]).output
    assert f"bob: par {bob['par']} - cost {bob['cost']} + gifts {bob['gifts']} = {bob['tricks']} tricks" in text


def test_one_deal_spread_over_workers_gives_the_same_output(tmp_path):
    from foreman_cli.generate import generate
    (rec, _), = generate(1, 12, stacked=0.0, max_deals=1)
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    outputs = [runner.invoke(app, ["analyze", str(path), "--json", "--deal", "1", "--from-trick", "11", "--jobs", j])
               for j in ("1", "2")]
    assert [o.exit_code for o in outputs] == [0, 0]
    assert outputs[0].stdout == outputs[1].stdout
    plays = json.loads(outputs[0].stdout)["deals"][0]["plays"]
    assert plays and all(None not in p["sure_before"].values() and p["cost"] is not None for p in plays)


def test_a_game_read_again_with_other_content_is_named_not_analysed_again(tmp_path):
    first = game(id="g1")
    other = game(id="g1", notes="written up again the next day")
    p = tmp_path / "two.jsonl"
    p.write_text(json.dumps(first) + "\n" + json.dumps(other) + "\n")
    res = runner.invoke(app, ["analyze", str(p)])
    assert res.exit_code == 1, res.output
    assert res.output.count("Game g1") == 1 and f"{p}:2  game g1" in res.output
    assert "(a different record) (DUPLICATE_GAME)" in res.output
    lines = [json.loads(x) for x in runner.invoke(app, ["analyze", str(p), "--json"]).output.splitlines()]
    assert [("deals" in x, x["source"].endswith(":2")) for x in lines] == [(True, False), (False, True)]
    # Near miss: the same record twice is analysed once, and nothing is in doubt.
    p.write_text(json.dumps(first) + "\n" + json.dumps(first) + "\n")
    same = runner.invoke(app, ["analyze", str(p)])
    assert same.exit_code == 0 and same.output.count("Game g1") == 1 and "DUPLICATE_GAME" not in same.output
