"""foreman ratings: a rating per player over the archive's won games, in the order played."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from typer.testing import CliRunner

from builders import base_deal, game
from foreman_cli import archive
from foreman_cli.audit import audit_paths
from foreman_cli.cli import app
from foreman_cli.generate import generate
from foreman_cli.ratings import PROVISIONAL_GAMES, WonGame, rate_games

runner = CliRunner()
REGULARS = ["ann", "ben", "cat", "dan", "eve", "fay"]


@pytest.fixture(scope="module")
def season(tmp_path_factory) -> str:
    """A season of 300 games of six regulars on fair deals; fay plays a random legal card every time."""
    d = tmp_path_factory.mktemp("season")
    path = d / "season.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r, _ in generate(
        300, 8, players=REGULARS, weak="fay", series_size=5, stacked=0.0)))
    db = str(d / "season.duckdb")
    archive.load(audit_paths([str(path)]), db)
    return db


def test_the_weak_player_has_the_lowest_rating(season):
    res = runner.invoke(app, ["ratings", "--db", season, "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    players = doc["players"]
    assert [p["player"] for p in players][-1] == "fay"
    assert sorted(p["player"] for p in players) == REGULARS
    assert [p["rank"] for p in players] == list(range(1, 7))
    assert all(a["rating"] >= b["rating"] for a, b in zip(players, players[1:]))
    assert all(round(p["mu"] - 3 * p["sigma"], 1) == round(p["rating"], 1) for p in players)
    won = archive.query(season, "SELECT count(*) FROM games WHERE status = 'won'").rows[0][0]
    assert doc["games"] == won and sum(p["games"] for p in players) == 3 * won
    assert sum(p["wins"] for p in players) == won


def test_the_same_archive_gives_the_same_ratings(season):
    first = runner.invoke(app, ["ratings", "--db", season, "--csv"]).output
    assert first.startswith("rank,player,rating,mu,sigma,games,wins,provisional\n")
    assert runner.invoke(app, ["ratings", "--db", season, "--csv"]).output == first


def test_the_role_of_the_deciding_deal_is_worth_rating(season):
    # The deciding deal's dealer wins most games: the model that knows the role foresees the
    # winners better than chance, the one that does not barely at all.
    games = list(archive.won_games(season))
    with_roles, without = rate_games(games), rate_games(games, role_term=False)
    assert with_roles.log_loss < without.log_loss - 0.1
    dealer = {p.player: p.mu for p in with_roles.roles}
    assert dealer["D"] > dealer["L"] and dealer["D"] > dealer["R"]
    text = runner.invoke(app, ["ratings", "--db", season]).output
    assert "The role in the deciding deal is rated too" in text and "fay" in text


def test_the_table_shows_rating_mu_and_sigma_each_to_two_places(season):
    text = runner.invoke(app, ["ratings", "--db", season]).output
    header, *rows = text.split("\n\n")[0].splitlines()
    assert header.split()[2:5] == ["rating", "mu", "sigma"] and len(rows) > 3
    assert all(re.fullmatch(r"-?\d+\.\d\d", cell) for row in rows for cell in row.split()[2:5]), rows


def test_a_season_keeps_its_games_and_says_what_a_bad_one_is(season):
    everything = json.loads(runner.invoke(app, ["ratings", "--db", season, "--json"]).output)
    first_days = json.loads(runner.invoke(app, ["ratings", "--db", season, "--json", "--season", "..2026-01-03"]).output)
    # generated games are an hour apart from 2026-01-01 19:00: 2026-01-01 and -02 and -03 hold 5 + 24 + 24 hours
    timed = archive.query(season, "SELECT count(*) FROM games WHERE status = 'won' AND played_at < '2026-01-04'").rows[0][0]
    assert first_days["games"] == timed < everything["games"] and first_days["season"] == {"from": None, "to": "2026-01-03"}
    later = json.loads(runner.invoke(app, ["ratings", "--db", season, "--json", "--season", "2026-01-04.."]).output)
    assert later["games"] + first_days["games"] == everything["games"]
    bad = runner.invoke(app, ["ratings", "--db", season, "--season", "2026-01-32..2026-02-01"])
    assert bad.exit_code == 2 and "'2026-01-32' is not a date" in bad.output
    bad = runner.invoke(app, ["ratings", "--db", season, "--season", "2026"])
    assert bad.exit_code == 2 and "FROM..TO" in bad.output
    backwards = runner.invoke(app, ["ratings", "--db", season, "--season", "2026-01-04..2026-01-03"])
    assert backwards.exit_code == 2 and "2026-01-04 is after 2026-01-03" in backwards.output
    one_day = json.loads(runner.invoke(app, ["ratings", "--db", season, "--json", "--season", "2026-01-03..2026-01-03"]).output)
    assert 0 < one_day["games"] < first_days["games"]  # a season of one day is not backwards
    empty = runner.invoke(app, ["ratings", "--db", season, "--season", "2030-01-01.."])
    assert empty.exit_code == 0 and "No won game to rate in the season 2030-01-01..:" in empty.output


def test_an_archive_of_unfinished_games_says_only_won_games_are_rated(tmp_path):
    path, db = tmp_path / "u.jsonl", str(tmp_path / "u.duckdb")
    path.write_text("".join(json.dumps(r) + "\n" for r, _ in generate(2, 3, max_deals=1)))
    assert runner.invoke(app, ["load", str(path), "--db", db]).exit_code in (0, 1)
    res = runner.invoke(app, ["ratings", "--db", db])
    assert res.exit_code == 0 and "No won game to rate in the archive: only won games are rated" in res.output


def test_a_season_says_how_many_won_games_it_left_out_for_want_of_a_time(tmp_path):
    path, db = tmp_path / "t.jsonl", str(tmp_path / "t.duckdb")
    dated = game(id="dated", played_at="2026-03-01T20:00:00+00:00")
    path.write_text("".join(json.dumps(r) + "\n" for r in [game(id="undated-1"), game(id="undated-2", deals=[base_deal(1)]),
                                                            dated]))
    runner.invoke(app, ["load", str(path), "--db", db])
    res = runner.invoke(app, ["ratings", "--db", db, "--season", "2026-03-01.."])
    assert res.exit_code == 0 and "1 won game rated" in res.output
    assert "2 won games have no time (played_at), so no season holds them" in res.output, res.output
    doc = json.loads(runner.invoke(app, ["ratings", "--db", db, "--season", "2026-03-01..", "--json"]).output)
    assert (doc["games"], doc["undated_left_out"]) == (1, 2)
    empty = runner.invoke(app, ["ratings", "--db", db, "--season", "2027-01-01.."])
    assert "No won game to rate in the season 2027-01-01..: 2 won games have no time" in empty.output, empty.output
    whole = runner.invoke(app, ["ratings", "--db", db])  # nearly: without a season every won game is rated
    assert "3 won games rated" in whole.output and "no time" not in whole.output
    assert json.loads(runner.invoke(app, ["ratings", "--db", db, "--json"]).output)["undated_left_out"] == 0


def test_the_order_of_finish_ranks_the_winner_first_then_by_tricks_ties_tied():
    g = WonGame("g", None, ("a", "b", "c"), winner=1, dealer=0, tricks=(3, 12, 1))
    assert g.ranks() == [2, 1, 3] and [g.role(s) for s in range(3)] == ["D", "L", "R"]
    # by tricks, not by quota outcome: the dealer a (3 of 8) finishes ahead of c (1 of 3)
    tie = WonGame("g", None, ("a", "b", "c"), winner=0, dealer=2, tricks=(12, 2, 2))
    assert tie.ranks() == [1, 2, 2]


def test_a_player_with_few_games_is_provisional():
    games = [WonGame(f"g{i}", None, ("a", "b", "c") if i % 2 else ("a", "b", "d"), winner=i % 3, dealer=i % 3,
                     tricks=(12, 2, 2)) for i in range(2 * PROVISIONAL_GAMES)]
    r = {p.player: p for p in rate_games(games).players}
    assert not r["a"].provisional and r["c"].games == PROVISIONAL_GAMES and not r["c"].provisional
    short = {p.player: p for p in rate_games(games[:PROVISIONAL_GAMES]).players}
    assert short["c"].provisional and short["c"].games == PROVISIONAL_GAMES // 2



def test_one_name_written_two_ways_is_rated_and_counted_apart_and_said_so(tmp_path, season):
    # 'Ann' in one record and 'ann' in the others print alike: two ratings, two rows of stats, and
    # a line that says they may be one player; the season's own names, all distinct, say nothing.
    for command in ("ratings", "stats"):
        assert json.loads(runner.invoke(app, [command, "--db", season, "--json"]).output)["name_clashes"] == []
        assert "are one name" not in runner.invoke(app, [command, "--db", season]).output
    rec = next(r for r, _ in generate(1, 9, players=REGULARS[:3], stacked=1.0))
    rec = json.loads(json.dumps(rec).replace('"ann"', '"Ann"'))
    rec["id"] = "renamed-1"
    path = tmp_path / "renamed.json"
    path.write_text(json.dumps(rec))
    db = tmp_path / "copy.duckdb"
    shutil.copy(season, db)
    archive.load(audit_paths([str(path)]), str(db))
    for command in ("ratings", "stats"):
        assert json.loads(runner.invoke(app, [command, "--db", str(db), "--json"]).output)["name_clashes"] == [
            ["Ann", "ann"]]
        assert "Ann and ann are one name" in runner.invoke(app, [command, "--db", str(db)]).output
