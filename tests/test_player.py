"""foreman player and foreman drill: one player's season, and his costliest positions to learn from."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foreman_cli import analysis, archive
from foreman_cli.audit import check_record
from foreman_cli.board import legal_cards
from foreman_cli.cards import CARD_OF
from foreman_cli.cli import app
from foreman_cli.player import player_report
from foreman_cli.reader import RawRecord

runner = CliRunner()
SAMPLES = Path(__file__).resolve().parent.parent / "samples"


@pytest.fixture
def analysed(analysed_archive) -> str:
    return analysed_archive


def test_the_season_splits_into_luck_skill_and_gifts_as_the_deals_do(analysed):
    r = player_report(analysed, "carol")
    t = r.totals
    assert t is not None and t.deals == sum(p.deals for p in r.periods) > 0
    assert t.against_quota == t.luck + t.skill + t.gifts + t.claims  # the identity, summed
    rows = archive.query(analysed, """SELECT sum(dp.tricks - dp.quota), sum(a.luck), -sum(a.cost), sum(a.gifts)
        FROM deal_accuracy a JOIN deal_players dp USING (game_id, deal, player)
        WHERE a.player = 'carol' AND a.par IS NOT NULL""").rows[0]
    assert (t.against_quota, t.luck, t.skill, t.gifts) == tuple(rows)
    assert {row[0] for row in r.by_role.rows} <= {"D", "L", "R"}
    assert r.games == 3 and len(r.rating) == 3  # a rating point after each of his won games
    # luck against the field is par above the role's mean: over every player it sums to nothing
    field = sum(player_report(analysed, p, lessons=0).totals.vs_field for p in ("alice", "bob", "carol"))
    assert abs(field) < 1e-9


def test_each_position_to_learn_from_is_the_recorded_one(analysed):
    r = player_report(analysed, "carol", lessons=5)
    assert len(r.lessons) == 5 and all(a.cost >= b.cost for a, b in zip(r.lessons, r.lessons[1:]))
    for x in r.lessons:
        raw = archive.query(analysed, f"SELECT raw FROM games WHERE id = '{x.game_id}'").rows[0][0]
        data = check_record(RawRecord(x.game_id, 1, raw)).data
        trick = [CARD_OF[t] for t in data.deals[x.deal - 1].tricks[x.trick - 1].cards]
        assert trick[len(x.trick_so_far)] == x.played and [c for _, c in x.trick_so_far] == trick[:len(x.trick_so_far)]
        assert x.played in x.hand and x.played not in x.best and set(x.best) <= set(x.hand)
        # the others' cards as the search saw them: with his hand and the trick so far, every card in play
        from foreman_cli.engine import position_at
        dealt = sorted(c for hand in position_at(data, x.deal, x.trick).hands for c in hand)
        assert sorted(x.hand + sum((cards for _, cards in x.others), ()) + tuple(c for _, c in x.trick_so_far)) == dealt
        assert {x.seat, *(s for s, _ in x.others)} == {0, 1, 2}
        led = None if not x.trick_so_far else x.trick_so_far[0][1] // 13
        assert x.played in legal_cards(list(x.hand), led)
        values = analysis.card_values(data, x.deal, x.trick, x.played)
        assert values[x.played] == x.made and all(values[c] == x.sure_before for c in x.best)
        assert max(values.values()) == x.sure_before


def test_the_player_command_prints_the_report_and_refuses_a_stranger(analysed, tmp_path):
    res = runner.invoke(app, ["player", "carol", "--db", analysed, "--lessons", "2"])
    assert res.exit_code == 0, res.output
    m = re.search(r"(-?\d+) against quota = luck ([+-]\d+) \+ skill ([+-]\d+) \+ gifts ([+-]\d+)", res.output)
    assert m and int(m[1]) == sum(int(m[i]) for i in (2, 3, 4))
    for title in ("Accuracy by role", "Accuracy by trick of the deal", "Head to head", "Positions to learn from"):
        assert title in res.output
    assert res.output.count("the trick so far:") == 2
    assert "Rating (mu - 3 sigma) over carol's 3 games with a winner:" in res.output  # not "3 won games": hers
    # three play: a game neither of a pair won is neither's win nor loss, and the table says so
    assert "Head to head (wins: carol won; losses: the opponent won; the third player won the rest)" in res.output
    res = runner.invoke(app, ["player", "zed", "--db", analysed])
    assert res.exit_code == 2 and "no player 'zed'" in res.output and "known: alice, bob, carol" in res.output


def test_a_player_without_analysis_is_told_how_to_get_it(tmp_path):
    db = str(tmp_path / "plain.duckdb")
    runner.invoke(app, ["load", str(SAMPLES / "01-clean-win.json"), "--db", db, "--quiet"])
    res = runner.invoke(app, ["player", "carol", "--db", db])
    assert res.exit_code == 0 and "load --analyze" in res.output and "Positions to learn from" not in res.output
    res = runner.invoke(app, ["drill", "carol", "--db", db])
    assert res.exit_code == 2 and "no costly card" in res.output


def test_drill_judges_the_typed_card_and_moves_on(analysed):
    from foreman_cli.cards import CANONICAL
    first, second, third = player_report(analysed, "carol", lessons=3).lessons
    best, table = CANONICAL[first.best[0]], CANONICAL[second.played]
    res = runner.invoke(app, ["drill", "carol", "--db", analysed, "--positions", "3"],
                        input=f"ZZ\nTH\n{best.lower()}\n{table}\n\n")
    assert res.exit_code == 0, res.output
    out = res.output
    assert "'ZZ' is not a card" in out
    assert "'TH': write 10H for the ten or AH for the ace" in out  # as records refuse it: ten to some, ace to others
    assert f"{best}: among the best, it keeps {first.sure_before} sure trick" in out
    assert f"{table} costs {second.cost} trick" in out and f"sure of {second.made} after it" in out
    assert out.count("Position ") == 3 and f"At the table carol played {CANONICAL[third.played]}" in out
    assert out.count("  the others held: ") == 3 and out.count("  the trick so far: ") == 3
    assert out.index("  the trick so far: ") < out.index("Your card?")  # the lead is shown before the question
    assert out.rstrip().endswith("2 positions answered, 1 among the best.")


def test_drill_stops_when_told(analysed):
    res = runner.invoke(app, ["drill", "carol", "--db", analysed], input="q\n")
    assert res.exit_code == 0 and res.output.count("Position ") == 1 and "0 positions answered" in res.output


def test_drill_reads_answers_as_utf8_and_a_stray_byte_is_an_answer_that_names_no_card(analysed):
    done = subprocess.run([sys.executable, "-m", "foreman_cli", "drill", "carol", "--db", analysed],
                          input=b"\xf6\nq\n", capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"})
    out = done.stdout.decode("utf-8")
    assert done.returncode == 0 and "'\ufffd' is not a card" in out and "0 positions answered" in out, done.stderr
