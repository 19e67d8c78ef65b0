"""A repeated game takes part in nothing else: every command on X and on X followed by repeats of X
gives the same output, apart from the DUPLICATE_GAME findings and their counts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from foreman_cli.cli import app

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
EVENING = SAMPLES / "08-friday-evenings.jsonl"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """X (the samples folder), X twice, and X with a few of its games repeated out of order."""
    base = tmp_path_factory.mktemp("repeats")
    lines = EVENING.read_text().splitlines(keepends=True)
    shuffled = base / "again.jsonl"
    shuffled.write_text(lines[4] + lines[1] + lines[5])  # games 5, 2, 6 of the evening
    return {"once": [SAMPLES], "twice": [SAMPLES, SAMPLES], "shuffled": [SAMPLES, shuffled],
            "file twice": [EVENING, EVENING]}


def _without_repeat_blocks(text: str) -> str:
    """The human validate output less the DUPLICATE_GAME lines, the titles of games left with no
    finding under them, and the summary's rows that count repeats (spacing folded: columns align
    to their widest cell)."""
    lines = [line if line.startswith("  ") else " ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if "(DUPLICATE_GAME)" not in line
             and not line.startswith(("read again", "DUPLICATE_GAME"))]
    title = re.compile(r"^\S+:\d+ game ")
    return "\n".join(line for i, line in enumerate(lines)
                     if not (title.match(line) and not (i + 1 < len(lines) and lines[i + 1].startswith("  "))))


def _json_lines_without_repeats(text: str) -> list[dict]:
    rows = [json.loads(x) for x in text.splitlines()]
    return [r for r in rows if not any(v["code"] == "DUPLICATE_GAME" for v in r["violations"])]


@pytest.mark.parametrize("case", ["twice", "shuffled", "file twice"])
def test_validate_is_the_same_but_for_the_repeats(inputs, case):
    once, again = inputs["once" if case != "file twice" else "file twice"][:1], inputs[case]
    for jobs in ("1", "2"):
        a = run("validate", "--json", "--jobs", jobs, *once)
        b = run("validate", "--json", "--jobs", jobs, *again)
        assert _json_lines_without_repeats(b.stdout) == _json_lines_without_repeats(a.stdout)
        assert len(b.stdout.splitlines()) > len(a.stdout.splitlines())
    human_once, human_again = run("validate", *once), run("validate", *again)
    assert "read again" in human_again.stdout
    assert _without_repeat_blocks(human_again.stdout) == _without_repeat_blocks(human_once.stdout)


@pytest.mark.parametrize("case", ["twice", "shuffled", "file twice"])
def test_settle_pays_the_same_but_lists_the_repeats(inputs, case):
    once, again = inputs["once" if case != "file twice" else "file twice"][:1], inputs[case]
    a, b = run("settle", "--json", *once), run("settle", "--json", *again)
    assert a.exit_code == b.exit_code
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert ja.pop("repeats") == [] and jb.pop("repeats")
    assert ja == jb
    assert run("settle", "--csv", *once).stdout == run("settle", "--csv", *again).stdout
    human_a, human_b = run("settle", *once).stdout, run("settle", *again).stdout
    section = human_b.index("Read again, not counted")
    end = human_b.index("\n\n", section)
    assert human_b[:section] + human_b[end + 2:] == human_a


def test_the_evening_read_with_a_repeat_still_disputes_the_wrong_dealer(tmp_path):
    """The repeat of game 2 of a series must not cancel game 3's DEALER_SUCCESSION (money moved)."""
    lines = EVENING.read_text().splitlines(keepends=True)
    path = tmp_path / "evening.jsonl"
    path.write_text("".join(lines) + lines[4])
    ledger = json.loads(run("settle", "--json", path).stdout)
    transfers = {(t["from"], t["to"], t["amount"]) for t in ledger["transfers"]}
    assert transfers == {("bob", "alice", "2.00"), ("bob", "carol", "2.00")}


def test_a_certificate_is_the_same_and_verifies_against_the_input_twice(inputs, tmp_path):
    one, two = tmp_path / "one.cert.json", tmp_path / "two.cert.json"
    run("settle", "--certificate", one, *inputs["once"])
    run("settle", "--certificate", two, *inputs["twice"])
    c1, c2 = (json.loads(p.read_text()) for p in (one, two))
    for c in (c1, c2):
        c.pop("created_at"), c.pop("sha256")
    assert c1 == c2
    result = run("verify", one, *inputs["twice"])
    assert result.exit_code == 0, result.stdout


def _tables(db: Path) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for (name,) in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall():
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
                [name]).fetchall() if c != "loaded_at"]
            sel = ", ".join(f'"{c}"::VARCHAR' for c in cols)
            out[name] = sorted(con.execute(f"SELECT {sel} FROM {name}").fetchall(), key=repr)
        return out
    finally:
        con.close()


@pytest.mark.parametrize("case", ["twice", "shuffled"])
def test_the_archive_is_the_same(inputs, tmp_path, case):
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    run("load", "--db", a, *inputs["once"])
    run("load", "--db", b, *inputs[case])
    ta, tb = _tables(a), _tables(b)
    assert ta["findings"] and any(row[1] == "DEALER_SUCCESSION" for row in ta["findings"])
    assert ta == tb
    assert run("stats", "--db", a).stdout == run("stats", "--db", b).stdout


def test_fairness_counts_each_deal_once(inputs):
    a = run("fairness", "--json", *inputs["once"])
    b = run("fairness", "--json", *inputs["twice"])
    assert json.loads(a.stdout) == json.loads(b.stdout)
    assert a.exit_code == b.exit_code


def test_analyze_costs_each_game_once(tmp_path):
    path = tmp_path / "twice.jsonl"
    text = json.dumps(json.loads((SAMPLES / "02-four-deals.json").read_text()))
    path.write_text(text + "\n")
    once = run("analyze", path, "--deal", "4", "--from-trick", "12", "--json")
    path.write_text(text + "\n" + text + "\n")
    twice = run("analyze", path, "--deal", "4", "--from-trick", "12", "--json")
    assert once.exit_code == twice.exit_code == 0
    assert once.stdout == twice.stdout.replace(str(path), str(path)) and once.stdout.strip()


def test_replay_and_report_take_a_repeated_game_as_one(tmp_path):
    path = tmp_path / "twice.jsonl"
    text = json.dumps(json.loads((SAMPLES / "01-clean-win.json").read_text()))
    path.write_text(text + "\n" + text + "\n")
    assert run("replay", path).exit_code in (0, 1)
    assert "more than one game" not in run("replay", path).stdout
    out = tmp_path / "page.html"
    assert run("report", path, "-o", out).exit_code == 0 and out.stat().st_size > 0


def test_replay_and_report_say_when_another_record_of_the_game_differs(tmp_path):
    first = json.loads(EVENING.read_text().splitlines()[0])
    other = dict(first, notes="written up again the next day")
    differing, same = tmp_path / "differing.jsonl", tmp_path / "same.jsonl"
    differing.write_text(json.dumps(first) + "\n" + json.dumps(other) + "\n")
    same.write_text(json.dumps(first) + "\n" + json.dumps(first) + "\n")
    doubt = f"In doubt: {differing}:2: game {first['id']} was already read at {differing}:1 (a different record)"
    shown = run("replay", differing, "--game", first["id"], "--deal", "1")
    assert shown.exit_code == 1 and doubt in shown.output, shown.output
    as_json = run("replay", differing, "--game", first["id"], "--json")
    assert as_json.exit_code == 1 and json.loads(as_json.stdout) and "in doubt: " + doubt[10:] in as_json.stderr
    page = tmp_path / "page.html"
    assert run("report", differing, "--game", first["id"], "-o", page).exit_code == 0
    assert "<strong>In doubt:</strong>" in page.read_text() and f"{differing}:2" in page.read_text()
    # Near miss: the same record twice is one game, shown as when read once.
    once = run("replay", EVENING, "--game", first["id"], "--deal", "1")
    twice = run("replay", same, "--game", first["id"], "--deal", "1")
    assert twice.exit_code == once.exit_code and "In doubt" not in twice.output
    assert twice.output.split("\n", 1)[1] == once.output.split("\n", 1)[1]  # but the source in the title
    assert run("replay", same, "--game", first["id"], "--json").stderr == ""
    run("report", same, "--game", first["id"], "-o", page)
    assert "In doubt" not in page.read_text()


def test_the_summary_counts_repeats_in_the_column_of_the_counts(inputs):
    out = run("validate", *inputs["twice"]).stdout
    rows = out.split("foreman validate\n")[1].split("\n\n")[0].splitlines()
    assert any(row.startswith("read again") for row in rows), rows
    assert all(row.split()[-1].isdigit() for row in rows), rows  # each row ends in its count, and nothing else
    assert len({len(row.rstrip()) for row in rows}) == 1, rows  # every count ends in one column


def test_a_repeats_title_says_it_is_not_counted_not_the_status_its_own_record_would_have(tmp_path):
    first = json.loads((SAMPLES / "01-clean-win.json").read_text())
    torn = {**first, "stake": "-1"}  # its own finding (RECORD_SCHEMA) is not shown: the repeat's only one is
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (first, first, torn)))
    out = run("validate", "-q", tmp_path / "a.jsonl").stdout
    titles = [line for line in out.splitlines() if not line.startswith("  ")]
    assert titles == [f"{tmp_path / 'a.jsonl'}:{n}  game fri-01-clean  read again, not counted" for n in (2, 3)], out
    assert "RECORD_SCHEMA" not in out and "won by" not in out and "invalid" not in out


def _kept_twice(tmp_path: Path) -> Path:
    """The evening as its JSON Lines and as its notation (what `convert` writes), side by side."""
    folder = tmp_path / "club"
    folder.mkdir()
    (folder / "evening.jsonl").write_text(EVENING.read_text())
    assert run("convert", EVENING, "--to", "fmn", "-o", folder / "evening.fmn").exit_code == 0
    return folder


def test_a_game_kept_as_json_and_as_notation_is_the_same_record_not_one_in_doubt(tmp_path):
    folder = _kept_twice(tmp_path)
    games = len(EVENING.read_text().splitlines())
    lines = [json.loads(x) for x in run("validate", "--json", folder).stdout.splitlines()]
    marks = [v["evidence"] for d in lines for v in d["violations"] if v["code"] == "DUPLICATE_GAME"]
    assert marks and len(marks) == games and all(m["identical"] is False and m["same_record"] is True for m in marks)
    settled = run("settle", folder)
    assert "(the same record, written another way)" in settled.stdout and "in doubt" not in settled.stdout
    assert settled.stdout.split("Balances")[1] == run("settle", EVENING).stdout.split("Balances")[1]
    # The evening's only dispute is its own (a dealer succession): the notation copies add none.
    assert settled.exit_code == run("settle", EVENING).exit_code
    assert "read again" not in run("fairness", folder).stdout


def test_a_copy_that_cannot_be_read_again_stays_in_doubt(tmp_path):
    """Near miss: the same notation on standard input, where foreman cannot read the copy again."""
    folder = _kept_twice(tmp_path)
    piped = runner.invoke(app, ["settle", str(folder / "evening.jsonl"), "-"],
                          input=(folder / "evening.fmn").read_text())
    assert piped.exit_code == 1 and "(its text differs)" in piped.stdout and "in doubt" in piped.stdout
    shown = runner.invoke(app, ["validate", "--json", "-", str(folder / "evening.jsonl")],
                          input=(folder / "evening.fmn").read_text())
    marks = [v["evidence"] for x in shown.stdout.splitlines() for v in json.loads(x)["violations"]
             if v["code"] == "DUPLICATE_GAME"]
    assert marks and all(m["same_record"] is None for m in marks)  # the first copy was read from stdin


def test_a_load_of_the_notation_after_the_json_finds_the_games_there(tmp_path):
    folder = _kept_twice(tmp_path)
    db = tmp_path / "club.duckdb"
    assert run("load", folder / "evening.jsonl", "--db", db).exit_code == 0
    again = run("load", folder / "evening.fmn", "--db", db)
    assert again.exit_code == 0 and " 0 conflicts" in again.stdout and " 0 games added" in again.stdout, again.stdout
    first = json.loads(EVENING.read_text().splitlines()[0])
    changed = tmp_path / "changed.jsonl"
    changed.write_text(json.dumps(dict(first, notes="written up again the next day")) + "\n")
    refused = run("load", changed, "--db", db)
    assert refused.exit_code == 1 and "the archive holds another record of this game" in refused.stdout
    piped = runner.invoke(app, ["load", "-", "--db", str(db)], input=changed.read_text())
    assert piped.exit_code == 1 and "the archive holds this game with another text" in piped.stdout


def test_a_copy_read_again_is_read_under_the_limit_the_run_was_given(tmp_path):
    first = dict(json.loads(EVENING.read_text().splitlines()[0]), notes="n" * (17 * 1024 * 1024))
    (tmp_path / "a.jsonl").write_text(json.dumps(first) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps(dict(reversed(first.items()))) + "\n")
    shown = run("validate", "--json", "--max-record-bytes", 20 * 1024 * 1024, tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    marks = [v["evidence"] for x in shown.stdout.splitlines() for v in json.loads(x)["violations"]
             if v["code"] == "DUPLICATE_GAME"]
    assert [m["same_record"] for m in marks] == [True]  # a 17 MB record, above the default limit of 16 MB
