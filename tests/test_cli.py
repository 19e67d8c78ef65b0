"""The command line through typer's CliRunner: exit codes, output, messages."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import base_deal, game, no_win_deal
from foreman_cli.cli import app

runner = CliRunner()
SAMPLES = str(__import__("pathlib").Path(__file__).resolve().parent.parent / "samples")


def write(tmp_path, name, recs):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return str(p)


def revoke_game():
    rec = game([base_deal(tricks=0)], id="rv")
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["3S", "2C", "AS"]}]
    return rec


def test_validate_clean_exits_0(tmp_path):
    res = runner.invoke(app, ["validate", write(tmp_path, "g.jsonl", [game()])])
    assert res.exit_code == 0, res.output
    assert "games read" in res.output and "clean" in res.output


def test_validate_breach_exits_1_and_says_where(tmp_path):
    path = write(tmp_path, "g.jsonl", [game(), revoke_game()])
    res = runner.invoke(app, ["validate", path])
    assert res.exit_code == 1
    assert f"{path}:2" in res.output
    assert "deal 1, trick 1: carol played 2C on a spade lead while holding 6S 5S 2S (REVOKE)" in res.output
    assert "REVOKE" in res.output.split("games read")[1]


def test_validate_json_lines_keys(tmp_path):
    path = write(tmp_path, "g.jsonl", [game(stake="1.00"), revoke_game()])
    res = runner.invoke(app, ["validate", "--json", path])
    assert res.exit_code == 1
    lines = [json.loads(x) for x in res.output.splitlines()]
    assert len(lines) == 2
    keys = {"id", "source", "status", "winner", "deals_played", "deciding_tricks", "net", "violations"}
    assert keys <= set(lines[0])
    assert lines[0]["net"] == {"alice": "-2.00", "bob": "4.00", "carol": "-2.00"}
    assert lines[0]["deciding_tricks"] == {"alice": 0, "bob": 12, "carol": 0}
    v = [x for x in lines[1]["violations"] if x["code"] == "REVOKE"][0]
    assert {k: v[k] for k in ("severity", "deal", "trick", "pass", "player", "card")} == \
        {"severity": "error", "deal": 1, "trick": 1, "pass": None, "player": "carol", "card": "2C"}
    assert lines[1]["status"] == "unfinished" and lines[1]["net"] is None


def test_validate_invalid_record_json(tmp_path):
    p = tmp_path / "g.jsonl"
    p.write_text('{"format": "foreman/1"\n' + json.dumps(game()) + "\n")
    res = runner.invoke(app, ["validate", "--json", str(p)])
    assert res.exit_code == 1
    a, b = [json.loads(x) for x in res.output.splitlines()]
    assert a["status"] == "invalid" and a["violations"][0]["code"] == "RECORD_SYNTAX" and a["deals_played"] == 0
    assert b["status"] == "won"


def test_rule_override_changes_the_outcome(tmp_path):
    path = write(tmp_path, "g.jsonl", [game(stake="1")])
    res = runner.invoke(app, ["validate", "--json", "--rule", "quota=9-5-2", path])
    assert json.loads(res.output)["net"] == {"alice": "-2", "bob": "4", "carol": "-2"}
    res = runner.invoke(app, ["validate", "--json", "--rule", "target=3", path])
    line = json.loads(res.output)
    assert line["deciding_tricks"]["bob"] == 3
    assert any(v["code"] == "PLAY_AFTER_END" for v in line["violations"])


def test_bad_option_and_missing_file_exit_2_without_traceback(tmp_path):
    res = runner.invoke(app, ["validate", "--rule", "quota=7-7-2", write(tmp_path, "g.jsonl", [game()])])
    assert res.exit_code == 2 and "quota must be one of 8-5-3, 9-5-2" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["validate", str(tmp_path / "missing.jsonl")])
    assert res.exit_code == 2 and "no such file or directory" in res.output
    res = runner.invoke(app, ["validate", "--rule", "colour=red", str(tmp_path / "g.jsonl")])
    assert res.exit_code == 2 and "unknown house option 'colour'" in res.output


def test_stdin(tmp_path):
    res = runner.invoke(app, ["validate", "--json", "-"], input=json.dumps(game()) + "\n")
    assert res.exit_code == 0 and json.loads(res.output)["source"] == "<stdin>:1"


def test_generate_is_reproducible_and_valid():
    a = runner.invoke(app, ["generate", "--games", "5", "--seed", "9"])
    b = runner.invoke(app, ["generate", "--games", "5", "--seed", "9"])
    assert a.exit_code == 0 and a.output == b.output and len(a.output.splitlines()) == 5
    res = runner.invoke(app, ["validate", "--json", "-"], input=a.output)
    assert res.exit_code == 0


def test_generate_seats_three_of_a_clubs_regulars_and_a_weak_player_wins_less():
    from foreman_cli.generate import generate
    club = ["ann", "ben", "cat", "dan", "eve", "fay"]
    games = [r for r, _ in generate(400, 3, players=club, weak="fay", stacked=0.0)]
    assert {p for g in games for p in g["players"]} == set(club) and all(len(set(g["players"])) == 3 for g in games)
    res = runner.invoke(app, ["validate", "--json", "-"], input="".join(json.dumps(g) + "\n" for g in games))
    results = [json.loads(line) for line in res.output.splitlines()]
    assert res.exit_code == 0 and all(v["severity"] == "warning" for r in results for v in r["violations"])  # legal
    won = [(r["winner"], g["players"]) for r, g in zip(results, games) if r["winner"]]
    fay = sum(w == "fay" for w, _ in won) / sum("fay" in ps for _, ps in won)
    others = sum(w != "fay" for w, _ in won) / sum(len(set(ps) - {"fay"}) for _, ps in won)
    assert fay < others - 0.05  # a share of the games she sat in, against the others' together


def test_generate_refuses_a_weak_player_who_is_not_at_the_table():
    res = runner.invoke(app, ["generate", "--players", "a,b,c", "--weak", "d"])
    assert res.exit_code == 2 and "--weak 'd': name one of the players (a, b, c)" in res.output
    res = runner.invoke(app, ["generate", "--players", "a,b,c,d", "--stacked-by", "a"])
    assert res.exit_code == 2 and "name one of three --players" in res.output


def test_generate_seats_only_names_its_records_may_hold_and_takes_spaces_after_commas():
    for listed, said in (("a,a,b", "each different even with case"), ("ann,bob,Ann", "each different even with case"),
                         ("a,b", "three names or more"), ("a,,b,c", "three names or more"),
                         ("a,b\tx,c", "holds the invisible or control character '\\t'")):
        res = runner.invoke(app, ["generate", "--players", listed])
        assert res.exit_code == 2 and said in res.output, (listed, res.output)
    res = runner.invoke(app, ["generate", "-n", "5", "--players", "alice, bob , carol, dan", "--weak", "dan"])
    games = [json.loads(line) for line in res.stdout.splitlines()]
    assert res.exit_code == 0 and {p for g in games for p in g["players"]} <= {"alice", "bob", "carol", "dan"}
    res = runner.invoke(app, ["validate", "-"], input=res.stdout)
    assert res.exit_code == 0 and "RECORD_SCHEMA" not in res.output, res.output


def test_generate_inject_refuses_unknown_code():
    res = runner.invoke(app, ["generate", "--inject", "NOPE"])
    assert res.exit_code == 2 and "can inject one of" in res.output


def test_schema_and_codes():
    res = runner.invoke(app, ["schema"])
    assert res.exit_code == 0 and json.loads(res.output)["title"] == "Foreman game record (foreman/1, foreman/1.1, foreman/1.2)"
    res = runner.invoke(app, ["codes", "revoke"])
    assert res.exit_code == 0 and "REVOKE" in res.output and "follow suit" in res.output
    assert runner.invoke(app, ["codes", "NOPE"]).exit_code == 2


def test_replay_symbols_on_a_terminal_letters_otherwise(monkeypatch):
    import io

    from foreman_cli import game_view, trace

    class Tty(io.StringIO):
        def isatty(self):
            return True

    t = trace.trace_game([f"{SAMPLES}/03-late-revoke.json"])
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    out = Tty()
    game_view.replay_view(t, out)
    assert "♥" in out.getvalue() and "\x1b[" in out.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    out = Tty()
    game_view.replay_view(t, out)
    assert "♥" not in out.getvalue() and "QH" in out.getvalue()
    plain = io.StringIO()
    monkeypatch.delenv("NO_COLOR")
    game_view.replay_view(t, plain)
    assert "♥" not in plain.getvalue() and "\x1b[" not in plain.getvalue()


def test_replay_needs_a_game_id_when_several():
    six = "friday-1127-g1, friday-1127-g2, friday-1127-g3, friday-1204-g1, friday-1204-g2, friday-1204-g3"
    res = runner.invoke(app, ["replay", f"{SAMPLES}/08-friday-evenings.jsonl"])
    assert res.exit_code == 2 and "--game ID" in res.output and f"the input's games: {six}\n" in res.output
    res = runner.invoke(app, ["replay", f"{SAMPLES}/08-friday-evenings.jsonl", "--game", "nope"])
    assert res.exit_code == 2 and "no game 'nope'" in res.output and six in res.output
    res = runner.invoke(app, ["report", SAMPLES, "--game", "nope", "-o", "x.html"])
    assert res.exit_code == 2 and "fri-01-clean, " in res.output and ", ... (17 in all)" in res.output
    for args in (["analyze", SAMPLES], ["analyze", SAMPLES, "--jobs", "2"]):  # analyze names them the same way
        res = runner.invoke(app, [*args, "--game", "nope"])
        assert res.exit_code == 2 and "no game 'nope'" in res.output and ", ... (17 in all)" in res.output, args
    res = runner.invoke(app, ["replay", f"{SAMPLES}/01-clean-win.json", "--deal", "5"])
    assert res.exit_code == 2 and "the game has 1 deal" in res.output


def test_jobs_give_the_same_output_in_the_same_order(tmp_path, monkeypatch):
    from foreman_cli import chunks
    from foreman_cli.generate import generate
    monkeypatch.setattr(chunks, "WORKER_CHUNK", 64 * 1024)  # many chunks, so the workers share the file
    recs = [r for r, _ in generate(300, 21, max_deals=4, series_size=7)]
    recs.insert(150, recs[10])  # a repeat, reported on the later copy whatever the worker
    bad = dict(recs[200])
    bad["id"] = "broken"
    bad["deals"] = "not a list"
    recs.insert(200, bad)
    path = write(tmp_path, "c.jsonl", recs)
    one = runner.invoke(app, ["validate", "--json", "--jobs", "1", path])
    two = runner.invoke(app, ["validate", "--json", "--jobs", "2", path])
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output
    assert len(one.output.splitlines()) == 302
    human1 = runner.invoke(app, ["validate", "--jobs", "1", path]).output
    assert human1 == runner.invoke(app, ["validate", "--jobs", "3", path]).output


def test_a_game_line_with_findings_added_reads_as_the_whole_result_does(tmp_path):
    """What a worker sends back for `validate --json` (results.GameLine), once the checks across
    games add to it, is the line the whole result gives: same bytes, same summary."""
    import msgspec
    from foreman_cli import audit
    from foreman_cli.generate import generate
    recs = [r for r, _ in generate(40, 5, max_deals=3, series_size=4)]
    recs += [recs[3], dict(recs[7], notes="changed")]  # an identical and a different repeat
    recs[9] = dict(recs[9], rules={"next_dealer": "winner"})
    path = write(tmp_path, "c.jsonl", recs)
    whole = list(audit.audit_paths([path]))
    lines = list(audit.validation_lines([path], jobs=2))
    assert [r.json() for r in lines] == [msgspec.json.encode(r.to_dict()) for r in whole]
    added = [r for r in lines if r.findings]
    assert {f.code for r in added for f in r.findings} >= {"DUPLICATE_GAME"} and len(added) >= 2
    one, two = audit.Summary(), audit.Summary()
    for a, b in zip(whole, lines):
        one.add(a)
        two.add(b)
    assert one == two and one.errors


@pytest.mark.parametrize("jobs", [1, 2])
def test_batches_written_whole_read_as_game_by_game(tmp_path, monkeypatch, jobs):
    """A batch the checks across games add nothing to goes out as one run of lines (audit.LineRun):
    the output and the counts are those of the results game by game."""
    import msgspec
    from foreman_cli import audit, chunks, render
    from foreman_cli.generate import generate
    monkeypatch.setattr(chunks, "WORKER_CHUNK", 1 << 20)
    recs = [r for r, _ in generate(600, 11, max_deals=12)]  # some 4 MB: chunks of 1 MB for the workers
    recs.insert(150, recs[20])  # a repeat: its batch goes game by game
    path = write(tmp_path, "runs.jsonl", recs)
    whole = list(audit.audit_paths([path]))
    items = list(audit.validation_lines([path], jobs=jobs))
    assert any(isinstance(i, audit.LineRun) for i in items) and any(isinstance(i, audit.GameLine) for i in items)
    import io
    out = io.StringIO()
    summary = render.validation_json(items, out)
    assert out.getvalue() == "".join(msgspec.json.encode(r.to_dict()).decode() + "\n" for r in whole)
    # A run's bytes go straight beneath a UTF-8 text stream, in order with the lines written as text
    for encoding in ("utf-8", "UTF8", "utf-16"):  # another encoding gets the text, decoded
        raw = io.BytesIO()
        text = io.TextIOWrapper(raw, encoding=encoding)
        render.validation_json(items, text)
        text.flush()
        assert raw.getvalue() == out.getvalue().encode(encoding), encoding
    one = audit.Summary()
    for r in whole:
        one.add(r)
    assert summary == one and one.by_code.get("DUPLICATE_GAME") == 1


def test_a_run_is_taken_whole_only_when_the_checks_across_games_add_nothing():
    """CrossChecks.take_run: a run with a repeat (of a game before it, or within it) or a series
    game is refused and notes nothing; a clean run notes its ids as feed would, one by one."""
    from foreman_cli import audit
    from foreman_cli.results import GameLine

    def gl(gid, series=None, fp=b"f"):
        return GameLine(gid, f"x.jsonl:{gid}", "won", fp, series, None, (), False, f'{{"id":"{gid}"}}'.encode())

    def run(*lines):
        return audit.LineRun.of(list(lines))
    cross = audit.CrossChecks()
    assert cross.take_run(run(gl("a"), gl(None), gl("b")))
    assert cross.ids == {"a", "b"} and [cross.first(i) for i in "abc"] == [("x.jsonl:a", b"f"), ("x.jsonl:b", b"f"), None]
    assert cross.take_run(run(gl("e", fp=None)))  # taken whole after a lookup: looked up in turn
    assert cross.first("e") == ("x.jsonl:e", None) and cross.first("b") == ("x.jsonl:b", b"f")
    for refused in (run(gl("c"), gl("a")), run(gl("c"), gl("c")), run(gl("c"), gl("d", series=("s", 1)))):
        assert not cross.take_run(refused) and cross.ids == {"a", "b", "e"} and cross.first("c") is None
        back = refused.game_lines()
        assert [(g.id, g.line) for g in back] == [(g, f'{{"id":"{g}"}}'.encode()) for g in refused.ids]
    repeat = cross.feed(gl("b", fp=b"g"))[0]
    assert repeat.findings[0].code == "DUPLICATE_GAME" and "its text differs" in repeat.findings[0].message


# --- Hardening II: terminal safety ---

HOSTILE = "al\x1b[2Jice\u202e\x07\x9b"


def test_control_characters_from_records_are_shown_escaped(tmp_path):
    # A name or a currency label holding them is refused (RECORD_SCHEMA), the refusal quoting it
    # escaped; what a query makes of them is shown escaped too.
    named = json.loads(json.dumps(game(id="esc", stake="1.00")).replace('"alice"', json.dumps(HOSTILE)))
    labelled = game(id="esc2", stake="1.00", currency=HOSTILE[:32])
    p = write(tmp_path, "esc.jsonl", [named, labelled])
    db = str(tmp_path / "esc.duckdb")
    outputs = []
    for args in (["validate", p], ["replay", p, "--game", "esc"], ["settle", p], ["load", p, "--db", db],
                 ["stats", "--db", db], ["query", "SELECT chr(27) || '[31m' AS red", "--db", db],
                 ["replay", p, "--game", "esc2"]):
        res = runner.invoke(app, args)
        outputs.append(res.output)
        assert "\x1b" not in res.output and "\u202e" not in res.output and "\x9b" not in res.output, args
    assert "al\\x1b[2Jice\\u202e" in outputs[1] and "\\x1b[31m" in outputs[5] and "\\x1b" in outputs[2]


# --- Conventions (issue 13, the first part) ---

def test_short_help_and_an_example_in_every_command():
    assert runner.invoke(app, ["-h"]).exit_code == 0
    import typer
    for cmd in typer.main.get_command(app).commands:
        res = runner.invoke(app, [cmd, "-h"])
        assert res.exit_code == 0 and "Example: foreman " + cmd in res.output, cmd


def test_every_example_is_one_whole_command_on_one_line_of_an_80_column_help():
    import typer
    for cmd, command in typer.main.get_command(app).commands.items():
        example = re.search(r"Example: (foreman .*?)(?:   \(|$)", command.help, re.M).group(1).strip()
        lines = runner.invoke(app, [cmd, "--help"], terminal_width=80).output.splitlines()
        assert any(example in line for line in lines), (cmd, example)


def test_the_help_of_commands_that_read_many_files_names_every_kind_read():
    from foreman_cli.reader import SUFFIXES
    for cmd in ("validate", "settle", "convert"):
        words = " ".join(runner.invoke(app, [cmd, "-h"], terminal_width=200).output.split())
        assert all(suffix + "," in words or suffix + ")" in words for suffix in SUFFIXES), (cmd, words)


def test_an_output_named_as_a_folder_is_refused_as_one(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    record = str(Path(SAMPLES) / "01-clean-win.json")
    for args in (["report", record, "-o", str(folder)], ["settle", record, "--certificate", str(folder)],
                 ["convert", record, "--to", "fmn", "-o", str(folder)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and f"{folder}: a folder, not a file; nothing was written" in res.output, args
        assert list(folder.iterdir()) == []
    assert runner.invoke(app, ["report", record, "-o", str(folder / "r.html")]).exit_code == 0


def test_an_id_longer_than_any_valid_one_is_cut_short_in_the_views_and_a_valid_one_is_not(tmp_path):
    long_id, longest_valid = "x" * 10_000, "y" * 128
    path = write(tmp_path, "ids.jsonl", [game(id=long_id), game(id=longest_valid)])
    for args in (["validate", str(path)], ["settle", str(path)]):
        out = runner.invoke(app, args, terminal_width=200).stdout
        assert "x" * 61 not in out and "... (10,000 characters)" in out, args
    assert longest_valid in runner.invoke(app, ["settle", str(path)], terminal_width=200).stdout
    assert long_id in runner.invoke(app, ["validate", "--json", str(path)]).stdout  # the data keeps it whole


def test_an_output_or_a_scorers_file_in_a_folder_that_is_not_there_is_refused_in_words(tmp_path):
    record = str(Path(SAMPLES) / "01-clean-win.json")
    missing = tmp_path / "no-such-folder"
    for args in (["report", record, "-o", str(missing / "r.html")], ["convert", record, "-o", str(missing / "r.fmn")],
                 ["settle", record, "--certificate", str(missing / "c.json")], ["record", str(missing / "f.fmn")]):
        res = runner.invoke(app, args, input="")
        assert res.exit_code == 2 and f"there is no folder {missing}; nothing was written" in res.output, args
    assert not missing.exists()
    res = runner.invoke(app, ["record", str(tmp_path)], input="")
    assert res.exit_code == 2 and f"{tmp_path}: a folder, not a file" in res.output

def test_no_output_replaces_an_input_or_an_archive(tmp_path):
    record = tmp_path / "r.json"
    record.write_bytes((Path(SAMPLES) / "01-clean-win.json").read_bytes())
    db = str(tmp_path / "a.duckdb")
    assert runner.invoke(app, ["load", str(record), "--db", db]).exit_code == 0
    archive = Path(db).read_bytes()
    for args in (["report", str(record), "-o", str(record)], ["settle", str(record), "--certificate", str(record)],
                 ["fairness", str(record), "--html", str(record)], ["convert", str(record), "-o", str(record)],
                 ["report", str(tmp_path), "-o", str(record)],  # a record in a folder read as input
                 ["player", "bob", "--db", db, "--html", db], ["report", str(record), "-o", db]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and "writing" in res.output and "would replace it" in res.output, (args, res.output)
    assert record.read_bytes() == (Path(SAMPLES) / "01-clean-win.json").read_bytes() and Path(db).read_bytes() == archive
    again = tmp_path / "page.html"
    for _ in range(2):  # an output of its own is replaced as before
        assert runner.invoke(app, ["report", str(record), "-o", str(again)]).exit_code == 0


def test_completion_is_offered():
    assert "--install-completion" in runner.invoke(app, ["--help"]).output


def test_validate_of_nothing_warns(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for args in ([str(empty)], [write(tmp_path, "none.jsonl", [])], ["-"]):
        res = runner.invoke(app, ["validate", *args], input="")
        assert res.exit_code == 0 and "no game was read" in res.stderr, args
        from foreman_cli.reader import SUFFIXES
        hint = " ".join(res.stderr.split())  # every kind of record file read is named
        assert all(suffix + "," in hint or suffix + ")" in hint for suffix in SUFFIXES), hint


def test_replay_exits_1_on_a_breach(tmp_path):
    assert runner.invoke(app, ["replay", f"{SAMPLES}/03-late-revoke.json"]).exit_code == 1
    assert runner.invoke(app, ["replay", f"{SAMPLES}/01-clean-win.json"]).exit_code == 0


def test_trick_beyond_the_deal_is_an_error_with_the_range():
    res = runner.invoke(app, ["replay", f"{SAMPLES}/03-late-revoke.json", "--deal", "1", "--trick", "40"])
    assert res.exit_code == 2 and "deal 1 has 12 tricks recorded; give 1 to 13" in res.output


def test_report_to_stdout_and_its_message_on_stderr(tmp_path):
    res = runner.invoke(app, ["report", f"{SAMPLES}/03-late-revoke.json", "-o", "-"])
    assert res.exit_code == 0 and res.stdout.startswith("<!DOCTYPE html>") and res.stderr == ""
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", f"{SAMPLES}/03-late-revoke.json", "-o", str(out)])
    assert res.stdout == "" and "wrote" in res.stderr and out.exists()


def test_query_reads_sql_from_stdin_and_sql_may_begin_with_a_comment(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db])
    res = runner.invoke(app, ["query", "-", "--db", db, "--csv"], input="SELECT count(*) AS n FROM games\n")
    assert res.exit_code == 0 and res.stdout == "n\n1\n"
    res = runner.invoke(app, ["query", "-- how many games\nSELECT count(*) AS n FROM games", "--db", db, "--csv"])
    assert res.exit_code == 0 and res.stdout == "n\n1\n"


def test_stats_for_an_unknown_player_lists_the_known_ones(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db])
    res = runner.invoke(app, ["stats", "--player", "nobody", "--db", db])
    assert res.exit_code == 2 and "no such player" in res.output and "known: alice, bob, carol" in res.output


def test_nets_are_signed_the_same_in_every_view(tmp_path):
    replay = runner.invoke(app, ["replay", f"{SAMPLES}/01-clean-win.json"]).output
    settle = runner.invoke(app, ["settle", f"{SAMPLES}/01-clean-win.json"]).output
    page = runner.invoke(app, ["report", f"{SAMPLES}/01-clean-win.json", "-o", "-"]).stdout
    assert "bob +4.00" in replay and "bob +4.00" in settle and ">+4.00 GBP<" in page


def test_replay_json_at_a_stopping_point_has_the_position():
    res = runner.invoke(app, ["replay", f"{SAMPLES}/03-late-revoke.json", "--deal", "1", "--trick", "9", "--json"])
    pos = json.loads(res.stdout)[-1]
    assert res.exit_code == 1 and pos["event"] == "position" and (pos["deal"], pos["trick"]) == (1, 9)
    assert set(pos["hands"]) == set(pos["legal"]) == {"alice", "bob", "carol"}
    assert all(set(pos["legal"][p]) <= set(pos["hands"][p]) for p in pos["hands"])
    assert "QD" in pos["hands"]["alice"] and "QD" not in pos["legal"]["alice"]  # she had to follow hearts


def test_a_stopping_point_after_the_deal_ended_says_nobody_plays_and_keeps_its_trick_number(tmp_path):
    deal = base_deal()  # bob (L) wins the game at trick 12
    deal["tricks"].append({"leader": "bob", "cards": ["3S", "5S", "AS"]})  # PLAY_AFTER_END
    path = tmp_path / "g.json"
    path.write_text(json.dumps(game([deal])))
    res = runner.invoke(app, ["replay", str(path), "--deal", "1", "--trick", "13"])
    assert res.exit_code == 1 and "Before deal 1, trick 13" in res.output, res.output
    assert "bob won the game at trick 12" in res.output and "leads" not in res.output and "legal" not in res.output
    assert "trick 13: a trick recorded after bob won" in res.output  # the finding at that place is shown
    pos = json.loads(runner.invoke(app, ["replay", str(path), "--deal", "1", "--trick", "13", "--json"]).stdout)[-1]
    assert (pos["trick"], pos["to_move"], pos["over"]) == (13, None, True)
    assert not any(pos["legal"].values()) and pos["hands"]["bob"] == ["7S", "4S", "3S", "2D"]
    before = json.loads(runner.invoke(app, ["replay", str(path), "--deal", "1", "--trick", "12", "--json"]).stdout)[-1]
    assert (before["to_move"], before["over"]) == ("bob", False) and before["legal"]["bob"]  # nearly: still to play
    path.write_text(json.dumps(game([no_win_deal()])))
    res = runner.invoke(app, ["replay", str(path), "--deal", "1", "--trick", "17"])
    assert "its 16 tricks are played" in res.output and "leads" not in res.output, res.output


def test_a_stopping_point_where_a_claim_was_made_shows_the_claim(tmp_path):
    deal = base_deal(tricks=10)
    deal["claim"] = {"by": "bob", "accepted": True}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(game([deal], format="foreman/1.1")))
    res = runner.invoke(app, ["replay", str(path), "--deal", "1", "--trick", "11"])
    assert "Claim: bob claimed the rest, tricks 11-12 (accepted)" in res.output, res.output
    assert res.output.index("Claim:") < res.output.index("Before deal 1, trick 11")
    events = json.loads(runner.invoke(app, ["replay", str(path), "--deal", "1", "--trick", "11", "--json"]).stdout)
    assert [e["event"] for e in events[-2:]] == ["position", "claim"] and events[-1]["by"] == "bob"
    earlier = runner.invoke(app, ["replay", str(path), "--deal", "1", "--trick", "10"])  # nearly: before the claim
    assert "Claim:" not in earlier.output and "Before deal 1, trick 10" in earlier.output


def test_replay_of_one_deal_shows_that_deal_only():
    res = runner.invoke(app, ["replay", f"{SAMPLES}/02-four-deals.json", "--deal", "3"])
    deals = [line for line in res.output.splitlines() if line.startswith("Deal ")]
    assert res.exit_code == 0 and len(deals) == 1 and deals[0].startswith("Deal 3") and "Result:" in res.output
    events = json.loads(runner.invoke(app, ["replay", f"{SAMPLES}/02-four-deals.json", "--deal", "3", "--json"]).stdout)
    assert {e.get("deal") for e in events if e["event"] != "result"} == {3} and events[-1]["event"] == "result"


def test_load_and_codes_speak_json(tmp_path):
    db = str(tmp_path / "a.duckdb")
    res = runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db, "--json"])
    doc = json.loads(res.stdout)
    assert res.exit_code == 0 and (doc["added"], doc["plays"], doc["invalid"]) == (1, doc["rows"]["plays"], [])
    codes = json.loads(runner.invoke(app, ["codes", "--json"]).stdout)
    assert [c["code"] for c in codes][:2] == ["RECORD_SYNTAX", "RECORD_SCHEMA"] and all(c["rule"] for c in codes)


def test_help_shows_no_type_placeholders():
    import re
    import typer
    for cmd in typer.main.get_command(app).commands:
        text = runner.invoke(app, [cmd, "--help"]).output
        options = text.split("Options:", 1)[1]  # typer adds a type to every argument's line; options have metavars
        shown = set(re.findall(r"<(?:bool|int|float|str|text|list)[^>]*>", options))
        assert "Options:" in text and not shown, (cmd, shown)


def test_no_help_sends_an_installed_foreman_to_a_file_it_does_not_have():
    import typer
    from foreman_cli.scoreboard import HELP
    commands = typer.main.get_command(app).commands
    helps = {cmd: runner.invoke(app, [cmd, "--help"], terminal_width=400).output for cmd in commands}
    assert len(helps) > 15 and all(text.startswith("Usage") for text in helps.values())
    named = {cmd: re.findall(r"docs/\w+\.md", text) for cmd, text in {**helps, "record (in session)": HELP}.items()}
    assert not any(named.values()), {cmd: files for cmd, files in named.items() if files}


def test_quiet_shows_only_the_problems(tmp_path):
    res = runner.invoke(app, ["validate", "-q", SAMPLES])
    assert res.exit_code == 1 and "REVOKE" in res.output and "games read" not in res.output
    assert runner.invoke(app, ["validate", "-q", f"{SAMPLES}/01-clean-win.json"]).output == ""
    res = runner.invoke(app, ["load", "-q", f"{SAMPLES}/01-clean-win.json", "--db", str(tmp_path / "a.duckdb")])
    assert res.exit_code == 0 and res.stdout == ""


def test_query_table_stops_at_the_limit_and_says_how_many_more(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db])
    res = runner.invoke(app, ["query", "SELECT trick, card FROM plays ORDER BY trick, position", "--db", db,
                              "--limit", "4"])
    lines = res.stdout.splitlines()
    assert res.exit_code == 0 and len(lines) == 5 and lines[0].split() == ["trick", "card"]
    assert res.stderr.startswith("foreman: warning: 38 more rows not shown (--limit 4)")
    everything = runner.invoke(app, ["query", "SELECT trick, card FROM plays", "--db", db, "--limit", "0"])
    assert len(everything.stdout.splitlines()) == 43 and everything.stderr == ""


def test_query_table_off_a_terminal_never_cuts_a_value(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db])
    res = runner.invoke(app, ["query", "SELECT repeat('x', 300) AS wide, 7 AS n, repeat(id, 20) AS ids FROM games",
                              "--db", db])
    header, row = res.stdout.splitlines()
    assert row.startswith("x" * 300 + "  ") and row.endswith("fri-01-clean" * 20)
    assert header.index("n") == row.index("7")  # numbers sit on the right of their column


def test_query_table_off_a_terminal_aligns_its_columns_as_a_screen_shows_them(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db])
    sql = ("SELECT '日本語' AS name, 12 AS n UNION ALL SELECT 'a' || chr(27) || 'b', 3 "
           "UNION ALL SELECT 'ab', 100 ORDER BY n")
    res = runner.invoke(app, ["query", sql, "--db", db])
    # Three characters two columns wide each, and an escape shown as the four characters \x1b.
    assert res.stdout.splitlines() == ["name      n", "a\\x1bb    3", "日本語   12", "ab      100"]


def test_a_line_break_in_a_value_keeps_the_table_one_line_a_row(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db])
    res = runner.invoke(app, ["query", "SELECT raw, 7 AS n FROM games", "--db", db])
    header, row = res.stdout.splitlines()
    assert row.startswith('{\\n "format": "foreman/1",\\n') and header.index("n") == row.index("  7") + 2
    exact = runner.invoke(app, ["query", "SELECT raw FROM games", "--db", db, "--json"]).stdout
    assert '"format": "foreman/1",\n' in json.loads(exact)["raw"]  # the exact text where a program reads it


def test_stats_align_numbers_and_show_rates_and_nets_for_people(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", SAMPLES, "--db", db])
    res = runner.invoke(app, ["stats", "--db", db])
    out = res.stdout.splitlines()
    assert "not shown" not in res.stderr  # every table is short: none is cut, and none says so
    players = out[out.index("Players") + 1:out.index("Players") + 3]
    assert players[0].split() == ["player", "games", "wins", "win_rate", "unfinished", "deals"]
    assert players[1].split()[3] == "58.8%" and players[0].index("win_rate") + len("win_rate") == \
        players[1].index("58.8%") + len("58.8%")
    money = out[out.index("Money") + 1:out.index("Money") + 5]
    assert money[1].split()[3] == "+4.00" and money[3].split()[3] == "-2.00"


def test_stats_csv_writes_one_table(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", SAMPLES, "--db", db])
    res = runner.invoke(app, ["stats", "--db", db, "--csv", "--table", "money"])
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0] == "player,currency,games,net,disputed_games,net_as_played"
    assert "bob,GBP,10,4.00,7,26.00" in res.stdout.splitlines()
    bad = runner.invoke(app, ["stats", "--db", db, "--csv", "--table", "nope"])
    assert bad.exit_code == 2 and "one of players, roles" in bad.stderr


def test_stats_tables_are_the_fields_of_the_statistics():
    import dataclasses
    from foreman_cli import cli, archive as store
    assert cli.STATS_TABLES == tuple(f.name for f in dataclasses.fields(store.Stats))


def test_findings_wrap_at_words_on_a_terminal_and_never_inside_a_code():
    import io
    from rich.console import Console
    from foreman_cli import game_view
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, width=50, color_system=None)
    from foreman_cli.findings import ReturnWrongCard
    game_view._print_finding(con, ReturnWrongCard(deal=1, pass_=1, player="bob", card="JD", received="2D",
                                               expected=("AD", "KD", "QD"), return_rule="higher"))
    lines = [line.rstrip() for line in buf.getvalue().splitlines()]
    assert len(lines) > 1 and all(len(line) <= 50 for line in lines)
    assert lines[0].startswith("  ! deal 1, pass 1:") and all(line.startswith("    ") for line in lines[1:])
    assert lines[-1].endswith("(RETURN_WRONG_CARD)")


def test_one_card_notation_in_the_replay_view():
    out = runner.invoke(app, ["replay", f"{SAMPLES}/04-wrong-return.json"]).stdout
    hands = [line for line in out.splitlines() if line.startswith("  bob ")][0]
    assert hands.split()[1:5] == ["AS", "KS", "QS", "JS"]  # the tokens of the tricks, not 'S: A K Q J'
    assert "bob held AD KD QD JD in diamonds: the highest, AD, should have come back" in out


def test_replay_at_the_breach_names_it_with_players_and_cards():
    res = runner.invoke(app, ["replay", f"{SAMPLES}/03-late-revoke.json", "--deal", "1", "--trick", "9"])
    tail = res.stdout.splitlines()[-2:]
    assert res.exit_code == 1
    assert tail == ["  recorded: bob QH, carol 6S, alice QD",
                    "  ! deal 1, trick 9: alice played QD on a heart lead while holding 9H 7H 4H (REVOKE)"]
    before = runner.invoke(app, ["replay", f"{SAMPLES}/03-late-revoke.json", "--deal", "1", "--trick", "8"]).stdout
    assert "(REVOKE)" not in before.split("Before deal 1, trick 8")[1]


def foreman(*args: str, **kw) -> subprocess.CompletedProcess:
    """foreman run as a program (python -m foreman_cli), its output captured as text."""
    return subprocess.run([sys.executable, "-m", "foreman_cli", *args], capture_output=True, text=True, timeout=300,
                          **kw)


@pytest.mark.parametrize("command,code", [("validate", 0), ("settle", 0), ("load", 0), ("fairness", 0),
                                          ("analyze", 0), ("replay", 2), ("report", 2)])
def test_an_input_with_no_game(tmp_path, command, code):
    """One convention for every command: an input with no game warns on stderr and exits 0; a
    command that shows one game exits 2 saying there is none."""
    empty = tmp_path / "empty"
    empty.mkdir()
    extra = {"load": ["--db", str(tmp_path / "a.duckdb")], "report": ["-o", str(tmp_path / "x.html")]}.get(command, [])
    done = foreman(command, str(empty), *extra)
    assert done.returncode == code and "Traceback" not in done.stderr, done.stderr
    assert (f"warning: no game was read from {empty}" if code == 0 else "no game") in done.stderr


def test_a_terminal_that_cannot_write_a_players_name_says_so_and_output_for_programs_is_utf8(tmp_path):
    evening = (Path(SAMPLES) / "10-play-only-evening.fmn").read_text().replace("carol", "Björn")
    (tmp_path / "e.fmn").write_text(evening)
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    for args in (["validate", str(tmp_path / "e.fmn")], ["settle", str(tmp_path / "e.fmn")]):
        done = foreman(*args, env=env)
        assert done.returncode == 2 and done.stderr.splitlines() == [
            f"foreman: {args[0]}: standard output is written in ascii, which cannot write U+00F6",
            "hint: set a UTF-8 locale (LANG=C.UTF-8) or PYTHONIOENCODING=utf-8"], done.stderr
    latin = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    human = subprocess.run([sys.executable, "-m", "foreman_cli", "settle", str(tmp_path / "e.fmn")], env=latin,
                           capture_output=True, timeout=300)
    assert "Björn".encode("latin-1") in human.stdout  # a view is in the terminal's encoding
    for args in (["validate", "--json"], ["settle", "--csv"], ["convert", "--to", "fmn"], ["convert", "--to", "json"],
                 ["report", "--game", "fri-1211-g1", "-o", "-"]):
        done = subprocess.run([sys.executable, "-m", "foreman_cli", *args, str(tmp_path / "e.fmn")], env=latin,
                              capture_output=True, timeout=300)
        assert done.returncode in (0, 1) and "Björn" in done.stdout.decode("utf-8"), (args, done.stderr[-300:])


def test_a_name_or_sql_holding_a_byte_that_is_not_utf8_is_a_usage_error_that_shows_the_byte(tmp_path):
    """Python keeps such a byte of argv as a lone surrogate, which DuckDB and a record cannot hold."""
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db])
    for args, where in ((["stats", "--player", "Bj\udcf6rn", "--db", db], "'--player'"),
                        (["player", "Bj\udcf6rn", "--db", db], "'NAME'"),
                        (["query", "SELECT 'Bj\udcf6rn'", "--db", db], "'SQL'"),
                        (["generate", "--players", "Bj\udcf6rn,b,c"], "'--players'"),
                        (["replay", f"{SAMPLES}/01-clean-win.json", "--game", "Bj\udcf6rn"], "'--game'")):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and "internal error" not in res.output, (args, res.output)
        assert f"Invalid value for {where}: holds the byte 0xf6 at character" in res.output, res.output
    res = runner.invoke(app, ["stats", "--player", "Bj\udcf6rn", "--db", db])
    assert "got 'Bj\\xf6rn'" in res.output and "udcf6" not in res.output  # the byte as Python writes bytes
    res = runner.invoke(app, ["query", "-", "--db", db], input="SELECT 'Bj\xf6rn' AS x".encode("latin-1"))
    assert res.exit_code == 2 and "the SQL on standard input is not UTF-8 text: byte 0xf6 at byte 11" in res.output


def test_a_record_file_whose_name_is_not_utf8_is_audited_settled_and_certified_with_the_byte_shown(tmp_path):
    record = tmp_path / os.fsdecode(b"Bj\xf6rn.json")
    record.write_bytes(Path(SAMPLES, "03-late-revoke.json").read_bytes())
    shown = f"{tmp_path}/Bj\\xf6rn.json:1"
    res = runner.invoke(app, ["validate", "--json", str(record)])
    assert res.exit_code == 1 and json.loads(res.stdout.splitlines()[0])["source"] == shown, res.output
    cert = str(tmp_path / "cert.json")
    res = runner.invoke(app, ["settle", str(record), "--certificate", cert])
    assert "internal error" not in res.output and "standard output" not in res.output, res.output
    res = runner.invoke(app, ["verify", cert, str(record)])
    assert res.exit_code == 0 and res.stdout.startswith("verified"), res.output
    res = runner.invoke(app, ["validate", str(tmp_path / os.fsdecode(b"no\xf6.json"))])
    assert res.exit_code == 2 and "no\\xf6.json: no such file or directory" in res.output, res.output


def test_an_empty_path_or_name_is_refused_not_taken_for_this_folder_or_the_default(tmp_path, monkeypatch):
    """`--db "$DB"` or `validate "$DIR"` with the variable unset: Path('') is the current folder."""
    monkeypatch.chdir(tmp_path)
    sample = f"{SAMPLES}/01-clean-win.json"
    for args, said in ((["validate", ""], "'': an empty path names no file"),
                       (["settle", sample, ""], "'': an empty path names no file"),
                       (["load", sample, "--db", ""], "--db '': an empty name names no archive"),
                       (["convert", sample, "-o", "", "--to", "fmn"], "-o '': an empty name names no file"),
                       (["report", sample, "-o", ""], "'': an empty name names no file; nothing was written"),
                       (["fairness", sample, "--html", ""], "'': an empty name names no file; nothing was written")):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and said in res.output, (args, res.output)
    assert not any(tmp_path.iterdir())  # no foreman.duckdb made here


def test_sql_piped_to_query_is_read_as_utf8_whatever_the_locale(tmp_path):
    db = str(tmp_path / "a.duckdb")
    runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", db])
    done = subprocess.run([sys.executable, "-m", "foreman_cli", "query", "-", "--db", db, "--csv"],
                          input="SELECT 'Björn' AS x".encode(), capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONIOENCODING": "latin-1"})
    assert done.returncode == 0 and done.stdout.decode("utf-8") == "x\nBjörn\n", done.stderr


def test_a_deal_out_of_range_exits_2_everywhere():
    sample = str(Path(SAMPLES) / "01-clean-win.json")
    for args in (["analyze", sample, "--deal", "99"], ["replay", sample, "--deal", "99"],
                 ["replay", sample, "--deal", "1", "--trick", "40"]):
        done = foreman(*args)
        assert done.returncode == 2 and done.stderr.count("\n") <= 2, (args, done.stderr)
        assert ("99" in done.stderr) != ("40" in done.stderr), (args, done.stderr)


def test_query_of_several_statements_is_refused_in_one_line(tmp_path):
    db = str(tmp_path / "a.duckdb")
    assert runner.invoke(app, ["load", str(Path(SAMPLES) / "01-clean-win.json"), "--db", db]).exit_code == 0
    done = subprocess.run([sys.executable, "-m", "foreman_cli", "query", "SELECT 1; SELECT 2", "--db", db],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "2 statements" in done.stderr and done.stdout == ""
    done = subprocess.run([sys.executable, "-m", "foreman_cli", "stats", "--table", "money", "--db", db],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--table money needs --csv" in done.stderr


def test_messages_are_whole_and_byte_counts_are_bytes(tmp_path):
    out = tmp_path / "page.html"
    done = subprocess.run([sys.executable, "-m", "foreman_cli", "report", str(Path(SAMPLES) / "01-clean-win.json"),
                           "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert f"({out.stat().st_size:,} bytes)" in done.stderr


def test_usage_errors_are_one_line_with_the_command_help_named():
    for args, said in ((["validate", "samples", "--jobs", "0"], "validate: Invalid value for '--jobs'"),
                       (["validate"], "validate: Missing argument 'PATH'"),
                       (["settle", "--bogus"], "settle: No such option: --bogus")):
        done = foreman(*args)
        lines = done.stderr.splitlines()
        assert done.returncode == 2 and len(lines) == 2, (args, done.stderr)
        assert lines[0].startswith("foreman: " + said) and lines[1] == f"hint: see 'foreman {args[0]} --help'"


@pytest.mark.parametrize("args, said", [
    (["validate", "samples", "--jobs", "0"], "'--jobs' / '-j': must be greater than or equal to 1, got '0'"),
    (["validate", "samples", "--jobs=abc"], "must be a valid integer, unable to parse string as an integer, got 'abc'"),
    (["validate", "samples", "-j", "2", "-j", "x"], "got 'x'"),  # the value typer judged: the last given
    (["analyze", "samples", "--from-trick", "0"], "'--from-trick': must be greater than or equal to 1, got '0'"),
])
def test_a_bad_option_value_is_quoted_as_given(args, said):
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and said in res.output, res.output
    assert "Input should be" not in res.output


def test_a_missing_option_quotes_no_value():
    res = runner.invoke(app, ["export", "--db", "x.duckdb"])
    assert res.exit_code == 2 and "Missing option '--parquet'." in res.output and "got" not in res.output


def test_help_shows_no_python_types_and_the_top_level_has_an_example():
    top = subprocess.run([sys.executable, "-m", "foreman_cli", "--help"], capture_output=True, text=True, timeout=120)
    assert "Example: foreman validate" in top.stdout
    import typer
    for command in typer.main.get_command(app).commands:
        done = runner.invoke(app, [command, "--help"], env={"COLUMNS": "120"})
        assert done.exit_code == 0, command
        assert not re.search(r"<(str|int|float|bool|list\[[a-z]+\])>|\{PATH\.\.\.\}", done.stdout), (command, done.stdout)


def _on_a_terminal(columns: int, *args: str, stdout_to=None) -> str:
    """What foreman prints on a terminal `columns` wide (a pseudo-terminal); with `stdout_to`, its
    standard output goes to that file and only standard error to the terminal."""
    import os
    import pty
    master, slave = pty.openpty()
    env = {"TERM": "dumb", **os.environ, "COLUMNS": str(columns), "LINES": "50", "NO_COLOR": "1"}
    out_file = open(stdout_to, "w") if stdout_to else None
    proc = subprocess.Popen([sys.executable, "-m", "foreman_cli", *args], stdout=out_file or slave, stderr=slave,
                            env=env)
    if out_file:
        out_file.close()
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=120)
    os.close(master)
    return out.decode()


@pytest.mark.parametrize("columns", [60, 80])
def test_a_narrow_terminal_cuts_no_number_or_id(columns):
    settled = _on_a_terminal(columns, "settle", SAMPLES)
    screen = _on_a_terminal(columns, "fairness", SAMPLES)
    for text in (settled, screen):
        assert "…" not in text
    ledger = json.loads(subprocess.run([sys.executable, "-m", "foreman_cli", "settle", "--json", SAMPLES],
                                       capture_output=True, text=True, timeout=120).stdout)
    for g in ledger["games"]:
        assert re.search(rf"^{re.escape(g['id'])}\s", settled, re.M), g["id"]
    for t in ledger["transfers"]:
        assert f"{t['from']} pays {t['to']} {t['amount']}" in settled
    if "left out" in settled:
        assert f"a terminal {columns} columns wide" in settled
    tests = json.loads(subprocess.run([sys.executable, "-m", "foreman_cli", "fairness", "--json", SAMPLES],
                                      capture_output=True, text=True, timeout=120).stdout)["tests"]
    for t in tests:
        assert f"{t['p_adjusted']:.2g}" in screen


def test_rates_are_shown_one_way():
    """Win rates, quota rates and accuracy alike: a percentage with one decimal."""
    from foreman_cli import render
    assert render.rate(0.92) == "92.0%" and render.rate(1 / 3) == "33.3%"
    analysed = subprocess.run([sys.executable, "-m", "foreman_cli", "analyze", str(Path(SAMPLES) / "09-contested-claim.json"),
                               "--from-trick", "10"], capture_output=True, text=True, timeout=300).stdout
    assert re.findall(r"accuracy (\S+)", analysed) and all(re.fullmatch(r"\d+\.\d%", a)
                                                          for a in re.findall(r"accuracy (\S+)", analysed))


def _generated(tmp_path, n: int = 120, *extra: str) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_text(runner.invoke(app, ["generate", "-n", str(n), "--seed", "4", "--stacked", "0.5", *extra]).stdout)
    return path


@pytest.mark.parametrize("command,doing", [("settle", "settling"), ("fairness", "screening"),
                                           ("validate", "validating")])
def test_long_work_shows_a_progress_bar_on_a_terminal_only(tmp_path, monkeypatch, command, doing):
    """A bar on stderr once the work has lasted FOREMAN_PROGRESS_AFTER seconds (here 0, so that
    the test does not depend on the machine's speed); none when stderr is not a terminal."""
    path = _generated(tmp_path)
    monkeypatch.setenv("FOREMAN_PROGRESS_AFTER", "0")
    monkeypatch.setenv("TERM", "xterm")
    if command == "validate":  # its results stream to stdout: the bar only when they go elsewhere
        shown = _on_a_terminal(100, command, str(path), "--json", stdout_to=tmp_path / "out.jsonl")
        assert (tmp_path / "out.jsonl").read_text().count("\n") == 120
        assert doing not in _on_a_terminal(100, command, str(path))
    else:
        shown = _on_a_terminal(100, command, str(path))
    assert doing in shown
    piped = subprocess.run([sys.executable, "-m", "foreman_cli", command, str(path)], capture_output=True, text=True,
                           timeout=120)
    assert doing not in piped.stderr


def test_settle_of_many_games_shows_the_summary_and_the_table_on_asking(tmp_path):
    path = _generated(tmp_path, 80, "--inject", "REVOKE")
    summary = runner.invoke(app, ["settle", str(path)])
    assert "Games: 80 settled" in summary.stdout and re.search(r"^disputed +\d+$", summary.stdout, re.M)
    assert "Nothing to pay." in summary.stdout or "Who pays whom" in summary.stdout
    assert "and 60 more (--per-game lists every one)" in summary.stdout  # 80 disputed: 20 listed
    listed = runner.invoke(app, ["settle", str(path), "--per-game"])
    assert "Games: 80 settled" not in listed.stdout and listed.stdout.count("gen-4-") >= 160


def test_an_invalid_record_in_a_settlement_counts_once_as_invalid_not_also_as_disputed(tmp_path):
    path = _generated(tmp_path, 60, "--inject", "REVOKE")
    with path.open("a") as out:
        out.write('{"format": "foreman/1", "id": "no-players"}\n')  # cannot be replayed: invalid
    summary = runner.invoke(app, ["settle", str(path)]).stdout
    counts = {label: int(n) for label, n in re.findall(r"^(\w[\w ]*?) +(\d+)$", summary, re.M)}
    assert counts["invalid"] == 1 and sum(counts.values()) == 61, summary
    games = {g["id"]: g for g in json.loads(runner.invoke(app, ["settle", str(path), "--json"]).stdout)["games"]}
    assert (games["no-players"]["disputed"], games["no-players"]["counted"]) == (False, False)
    assert any(g["disputed"] for g in games.values())  # the revokes still are
    table = runner.invoke(app, ["settle", str(path), "--per-game"], terminal_width=200).stdout
    assert re.search(r"^no-players +invalid .* no *$", table, re.M), table


def test_an_option_that_needs_another_says_so(tmp_path):
    for args in (["report", str(Path(SAMPLES) / "01-clean-win.json"), "-o", str(tmp_path / "p.html"), "--budget", "5"],
                 ["load", SAMPLES, "--db", str(tmp_path / "a.duckdb"), "--budget", "5"]):
        done = foreman(*args)
        assert done.returncode == 2 and "--budget needs --analyze" in done.stderr, args
        assert f"hint: see 'foreman {args[0]} --help'" in done.stderr


def test_an_internal_failure_is_one_line_and_exit_2(monkeypatch):
    """A bug of ours must not read as a finding (exit 1) nor print a traceback."""
    from foreman_cli import fairness

    def broken(*args, **kwargs):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(fairness, "screen", broken)
    res = runner.invoke(app, ["fairness", SAMPLES])
    assert res.exit_code == 2 and "internal error: ZeroDivisionError" in res.stderr
    assert "Traceback" not in res.output and res.stderr.count("\n") == 2
