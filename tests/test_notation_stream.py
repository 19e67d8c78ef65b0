"""Notation read a game at a time: the compiled reader gives exactly the reference's records, and a
stream cut into games (at any block size, with any line endings, with bytes that are not UTF-8)
reads as the reference reads the whole text."""

from __future__ import annotations

import io
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foreman_cli import core, notation_stream
from foreman_cli.convert import write_game
from foreman_cli.generate import INJECTABLE, generate
from foreman_cli.notation import read_games

from builders import styled_notation

compiled = pytest.mark.skipif(core.fmn_game is None, reason="no compiled core (not built, or FOREMAN_PURE=1)")


def _records() -> list[dict]:
    recs = [r for r, _ in generate(12, 5, max_deals=4, claims=0.3, series_size=3)]
    recs += [r for r, _ in generate(6, 6, max_deals=3, play_only=0.5)]
    for k, code in enumerate(INJECTABLE):
        recs += [r for r, _ in generate(1, 200 + k, inject=code, max_deals=3)]
    # names a scorer must quote, or that hold a backslash or a '#'
    for i, new in enumerate(["Björn", "Kim Lee", "O'Neil", "a\\b", "José", "#1"]):
        old = recs[i]["players"][i % 3]
        recs[i] = json.loads(json.dumps(recs[i]).replace(json.dumps(old), json.dumps(new)))
    return recs


RECORDS = _records()


def reference(text: str) -> list[tuple]:
    """What notation.read_games makes of the whole text: each game's line, JSON text, error, column."""
    out = []
    for g in read_games(text.split("\n")):
        if g.record is not None:
            out.append((g.line, json.dumps(g.record, ensure_ascii=False, separators=(",", ":")), None, None))
        else:
            out.append((g.error_line, None, g.error, g.column))
    return out


TOO_LONG = "longer than the limit"


def streamed(data: bytes, limit: int = 1 << 40) -> list[tuple]:
    return [(r.line, r.text, r.error, r.column) for r in notation_stream.read_notation(io.BytesIO(data), limit, TOO_LONG)]


@compiled
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(RECORDS) - 1), st.integers(0, 2**32))
def test_the_compiled_reader_gives_the_reference_record_or_leaves_the_game_to_it(i, seed):
    text = styled_notation(RECORDS[i], random.Random(seed))
    fast = core.fmn_game(text)
    assert fast is None or [(1, fast, None, None)] == reference(text)


@compiled
def test_the_compiled_reader_reads_notation_as_convert_writes_it():
    for rec in RECORDS:
        text = write_game(rec)
        assert [(1, core.fmn_game(text), None, None)] == reference(text), text[:300]


# What a hostile or careless file puts in a line: quotes, comments, separators, Unicode spaces,
# digits int() refuses, control characters, keywords out of place, lines cut or joined.
_NASTY = ['"', '""', '"a b"', '"é"', "\\", "#", ";", "/", ":", ".", "-", " none", "none ", "game ", "\ngame x\n",
          "\t", "\x0b", "\x0c", "\x1c", "\x85", "\u00a0", "\u2003", "\u3000", "²", "\u0663", "ſ", "♠", "10", "S ",
          " AS", "deal ", "deal\n", "left a / b / c", "claimed ", "claimed pay none", "rules deal_rotation=right\n",
          "note x", "\n", "cards seed\n", "ext {}", "pass none", "kitty none", "hand x\n", "1. ", "99. ", "bob: ",
          "players a b c\n", "stake 1 X\n", "claim a accepted", "\x7f"]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(RECORDS) - 1), st.integers(0, 2**32),
       st.lists(st.tuples(st.floats(0, 1), st.sampled_from(_NASTY), st.integers(0, 3)), max_size=6),
       st.integers(1, 400), st.integers(1, 3))
def test_a_stream_reads_as_the_reference_reads_the_whole_text(i, seed, edits, block, games):
    rnd = random.Random(seed)
    text = "".join(styled_notation(RECORDS[(i + k) % len(RECORDS)], rnd) for k in range(games))
    for where, piece, cut in edits:  # each edit puts a piece in, in place of up to 3 characters
        at = int(where * len(text))
        text = text[:at] + piece + text[at + cut:]
    if rnd.random() < 0.3:
        text = "# an evening\n\n" + text
    notation_stream.BLOCK, saved = block, notation_stream.BLOCK
    try:
        assert streamed(text.encode()) == reference(text)
    finally:
        notation_stream.BLOCK = saved


def test_what_comes_before_the_first_game_is_one_error_however_long():
    text = "".join(f"not notation {k}\n" for k in range(3000)) + write_game(RECORDS[0])
    got = streamed(text.encode())
    assert got == reference(text) and len(got) == 2
    assert "starts with a 'game' line" in got[0][2] and got[1][0] == 3001 and got[1][1] is not None


def test_line_endings_of_any_system_read_the_same():
    text = "".join(write_game(r) for r in RECORDS[:4])
    unix = streamed(text.encode())
    assert streamed(text.replace("\n", "\r\n").encode()) == unix
    assert streamed(text.replace("\n", "\r").encode()) == unix
    assert streamed(b"\xef\xbb\xbf" + text.encode()) == unix


def test_a_game_with_bytes_that_are_not_utf8_is_its_own_error_and_the_others_are_read():
    games = [write_game(r) for r in RECORDS[:3]]
    bad = games[1].replace("\ndeal ", "\n# caf\udce9\ndeal ", 1)
    data = "".join([games[0], bad, games[2]]).encode("utf-8", "surrogateescape")
    got = streamed(data)
    line = games[0].count("\n") + bad[:bad.index("\udce9")].count("\n") + 1
    assert [g[1] is not None for g in got] == [True, False, True]
    assert got[1][0] == line and got[1][2] == "not UTF-8 text: byte 0xe9"
    assert got[2][0] == games[0].count("\n") + bad.count("\n") + 1


@pytest.mark.parametrize("block", [7, 1 << 20])  # the game dropped as it is read, or judged once it is whole
@pytest.mark.parametrize("filler", ["x", "\u00e9"])  # one byte a character, or two
def test_a_game_beyond_the_byte_limit_is_one_error_and_the_games_around_it_read_as_without_it(block, filler,
                                                                                            monkeypatch):
    games = [write_game(r) for r in RECORDS[:3]]
    big = games[1].replace("\ndeal ", "\nnote " + filler * 4000 + "\n" + "# kept at the table\n" * 200 + "deal ", 1)
    text = games[0] + big + games[2]
    monkeypatch.setattr(notation_stream, "BLOCK", block)
    whole = reference(text)
    size = len(big.encode())
    assert streamed(text.encode(), size) == whole  # the near miss: a game of exactly the limit is read
    got = streamed(text.encode(), size - 1)
    assert got == [whole[0], (games[0].count("\n") + 1, None, TOO_LONG, None), whole[2]]
    (_, said, _) = notation_stream.read_notation(io.BytesIO(text.encode()), size - 1, TOO_LONG)
    assert said.id == RECORDS[1]["id"]


def test_validate_holds_notation_to_max_record_bytes(tmp_path):
    from typer.testing import CliRunner
    from foreman_cli.cli import app
    path = tmp_path / "evening.fmn"
    path.write_text("".join(write_game(r) for r in RECORDS[:2]))
    limit = len(write_game(RECORDS[0]).encode())
    res = CliRunner().invoke(app, ["validate", "--json", "--max-record-bytes", str(limit - 1), str(path)])
    first = json.loads(res.stdout.splitlines()[0])
    assert first["id"] == RECORDS[0]["id"] and first["status"] == "invalid"
    assert f"longer than {limit - 1} bytes (--max-record-bytes)" in first["violations"][0]["message"]


@pytest.mark.parametrize("block", [7, 1 << 20])
def test_a_line_beyond_the_limit_is_dropped_as_it_is_read_before_the_games_or_in_one(block, monkeypatch):
    games = [write_game(r) for r in RECORDS[:3]]
    long_note = games[1].replace("\ndeal ", "\nnote " + "x" * 4000 + "\ndeal ", 1)
    junk = "junk " + "z" * 4000 + "\nmore junk\n"
    text = junk + games[0] + long_note + games[2]
    monkeypatch.setattr(notation_stream, "BLOCK", block)
    whole = reference(text)
    got = streamed(text.encode(), 3000)
    assert got[0][1] is None and "starts with a 'game' line" in got[0][2] and got[0][0] == 1
    assert got[1] == whole[1] and got[3] == whole[3]  # the games around it, at their lines
    assert got[2] == (3 + games[0].count("\n"), None, TOO_LONG, None)
    assert len(got) == 4


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(RECORDS) - 1), st.integers(0, 2**32),
       st.lists(st.tuples(st.floats(0, 1), st.sampled_from(_NASTY), st.integers(0, 3)), min_size=1, max_size=8))
def test_every_error_of_a_game_begins_with_the_one_the_stream_reads(i, seed, edits):
    text = styled_notation(RECORDS[i], random.Random(seed))
    for where, piece, cut in edits:
        at = int(where * len(text))
        text = text[:at] + piece + text[at + cut:]
    for r in notation_stream.read_notation(io.BytesIO(text.encode()), 1 << 40, TOO_LONG):
        if r.error is None or r.game is None:
            continue
        errors = notation_stream.syntax_errors(r.game, r.line)
        assert errors[0] == (r.error, r.line, r.column)
        lines = [line for _, line, _ in errors]
        assert lines == sorted(set(lines)), errors  # in the order of the file, each line told once


@pytest.mark.parametrize("before, wrote", [("\ngame x\n", 4), ("", 2)])  # after another game; first in its file
def test_an_error_that_names_an_earlier_line_names_it_as_the_file_numbers_it(tmp_path, before, wrote):
    from typer.testing import CliRunner
    from foreman_cli.cli import app
    path = tmp_path / "evening.fmn"
    path.write_text(before + "game y\nplayers bob erin frank\ndeal bob\nplayers a b c\n")
    out = CliRunner().invoke(app, ["validate", "--json", str(path)]).stdout
    messages = [v["message"] for line in out.splitlines() for v in json.loads(line)["violations"]]
    assert f"players: a b c here, but line {wrote} wrote bob erin frank; write it once" in " ".join(messages), messages
