"""Every input form: object, pretty object, array, JSON Lines, gzip, stdin, directories, damage."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from builders import game
from foreman_cli import audit
from foreman_cli.errors import InputError
from foreman_cli.reader import read_records, read_stream


def recs(n=3):
    return [game(id=f"g{i}") for i in range(n)]


def results(path, **kw):
    return [(r.source.rsplit(":", 1)[1], r.status, r.id, [f.code for f in r.findings])
            for r in audit.audit_paths([str(path)], **kw)]


def test_a_file_of_another_name_is_read_by_its_first_line(tmp_path):
    from conftest import SAMPLES
    typed = tmp_path / "evening.txt"
    typed.write_bytes((SAMPLES / "10-play-only-evening.fmn").read_bytes())
    lines = tmp_path / "friday.txt"
    lines.write_bytes((SAMPLES / "08-friday-evenings.jsonl").read_bytes())
    as_named = {p.name: [(r.line, r.text, r.error) for r in read_records([str(p)])] for p in (typed, lines)}
    assert as_named["evening.txt"] == [(r.line, r.text, r.error) for r in read_records([str(SAMPLES / "10-play-only-evening.fmn")])]
    assert as_named["friday.txt"] == [(r.line, r.text, r.error) for r in read_records([str(SAMPLES / "08-friday-evenings.jsonl")])]
    assert all(error is None for records in as_named.values() for _, _, error in records)
    (tmp_path / "notes.txt").write_text("game g1\n")  # in a folder, only record files are read
    assert len(list(read_records([str(tmp_path)]))) == 0


def test_single_object_pretty(tmp_path):
    p = tmp_path / "one.json"
    p.write_text(json.dumps(recs(1)[0], indent=2))
    assert results(p) == [("1", "won", "g0", [])]


def test_array_reports_element_lines(tmp_path):
    p = tmp_path / "arr.json"
    p.write_text("[\n" + ",\n".join(json.dumps(r) for r in recs()) + "\n]\n")
    assert [(line, gid) for line, _, gid, _ in results(p)] == [("2", "g0"), ("3", "g1"), ("4", "g2")]


def test_empty_array_and_empty_file(tmp_path):
    (tmp_path / "a.json").write_text("[ ]")
    (tmp_path / "b.json").write_text("")
    assert results(tmp_path / "a.json") == [] and results(tmp_path / "b.json") == []


def test_json_lines_with_bom_crlf_and_blank_lines(tmp_path):
    p = tmp_path / "x.json"  # a .json file holding JSON Lines is read as JSON Lines
    p.write_bytes(b"\xef\xbb\xbf" + b"\r\n\r\n".join(json.dumps(r).encode() for r in recs()) + b"\r\n")
    assert [(line, gid) for line, _, gid, _ in results(p)] == [("1", "g0"), ("3", "g1"), ("5", "g2")]


@pytest.mark.parametrize("name,encoding", [("x.json", "utf-16-le"), ("x.jsonl", "utf-16-be"), ("x.fmn", "utf-16-le"),
                                           ("-", "utf-16-le")])
def test_a_file_saved_as_utf16_is_one_error_that_says_so_not_one_a_line(tmp_path, name, encoding):
    from conftest import SAMPLES
    text = "\n".join(json.dumps(r) for r in recs()) + "\n"
    if name.endswith(".fmn"):
        text = (SAMPLES / "10-play-only-evening.fmn").read_text()
    data = ("\ufeff" + text).encode(encoding)  # its byte-order mark first, as Windows tools save it
    path = tmp_path / name
    if name != "-":
        path.write_bytes(data)
    stdin = io.BufferedReader(io.BytesIO(data)) if name == "-" else None
    found = [(r.line, r.text, r.error) for r in read_records([str(path) if name != "-" else "-"], stdin=stdin)]
    assert len(found) == 1 and found[0][:2] == (1, None), found
    assert found[0][2].startswith("UTF-16 text (it begins with F") and "save the file as UTF-8" in found[0][2]
    if name != "-":  # and so with workers, which cut a JSON Lines file themselves
        assert [r.status for r in audit.audit_paths([str(path)], jobs=2)] == ["invalid"]
    utf8 = tmp_path / ("y" + (name if name != "-" else ".json"))
    utf8.write_bytes(b"\xef\xbb\xbf" + text.encode())  # the near miss: UTF-8 with its BOM reads whole
    assert all(r.error is None for r in read_records([str(utf8)])) and len(list(read_records([str(utf8)]))) >= 3


def test_gzip_compressed_notation_is_one_error_that_says_so(tmp_path):
    from conftest import SAMPLES
    evening = (SAMPLES / "10-play-only-evening.fmn").read_bytes()
    for name in ("evening.fmn.gz", "evening.gz"):
        (tmp_path / name).write_bytes(gzip.compress(evening))
        found = [(r.line, r.error) for r in read_records([str(tmp_path / name)])]
        assert found == [(1, "gzip-compressed notation, not read: gunzip it, then give the .fmn")], found
    (tmp_path / "g.json.gz").write_bytes(gzip.compress(json.dumps(recs()[0]).encode()))  # the near miss
    assert [r.error for r in read_records([str(tmp_path / "g.json.gz")])] == [None]

def test_broken_line_in_the_middle_does_not_stop_the_rest(tmp_path):
    lines = [json.dumps(r) for r in recs()]
    p = tmp_path / "x.jsonl"
    p.write_text(lines[0] + "\n" + lines[1][:120] + "\n" + lines[2] + "\n")
    out = results(p)
    assert [o[1] for o in out] == ["won", "invalid", "won"]
    assert out[1][3] == ["RECORD_SYNTAX"] and out[1][0] == "2"
    r = list(audit.audit_paths([str(p)]))[1]
    assert r.findings[0].evidence == {"line": 2, "column": 120}


def test_syntax_error_in_array_ends_the_array_only(tmp_path):
    lines = [json.dumps(r) for r in recs()]
    p = tmp_path / "a.json"
    p.write_text("[" + lines[0] + ",\n" + lines[1][:100] + "\n," + lines[2] + "]")
    q = tmp_path / "b.jsonl"
    q.write_text(lines[2] + "\n")
    out = [(r.status, r.source) for r in audit.audit_paths([str(p), str(q)])]
    assert out[0][0] == "won" and out[1][0] == "invalid" and out[2] == ("won", f"{q}:1")


def test_gzip_of_each_layout_and_stdin(tmp_path):
    body = "\n".join(json.dumps(r) for r in recs()).encode()
    p = tmp_path / "x.jsonl.gz"
    p.write_bytes(gzip.compress(body))
    assert len(results(p)) == 3
    q = tmp_path / "y.json.gz"
    q.write_bytes(gzip.compress(json.dumps(recs()).encode()))
    assert len(results(q)) == 3
    got = list(audit.audit_paths(["-"], stdin=io.BytesIO(gzip.compress(body))))
    assert [r.source for r in got] == ["<stdin>:1", "<stdin>:2", "<stdin>:3"]


def test_a_damaged_gzip_file_is_one_error_and_none_of_its_records_is_read(tmp_path):
    """A byte damaged in gzip data can decode into another valid record (a card changed, a breach
    made up) before the damage shows: a file that fails its own check is read for none of its records."""
    body = "\n".join(json.dumps(r) for r in recs()).encode()
    whole = gzip.compress(body)
    flipped = bytearray(whole)
    flipped[-6] ^= 0x55  # the trailer's CRC: every record decodes, and the check fails at the end
    for name, data, why in (("cut", whole[:-20], "ended before"), ("crc", bytes(flipped), "CRC check failed")):
        p = tmp_path / f"{name}.jsonl.gz"
        p.write_bytes(data)
        (only,) = list(audit.audit_paths([str(p)]))
        assert (only.status, only.source, [f.code for f in only.findings]) == ("invalid", f"{p}:1", ["RECORD_SYNTAX"])
        assert why in only.findings[0].message and "none of its records is read" in only.findings[0].message
    (tmp_path / "whole.jsonl.gz").write_bytes(whole)  # the near miss: a whole file reads every record
    assert [o[1] for o in results(tmp_path / "whole.jsonl.gz")] == ["won"] * len(recs())


class _Pipe(io.BytesIO):
    def seekable(self) -> bool:
        return False


def test_damaged_gzip_on_a_pipe_keeps_the_records_before_the_damage():
    """A pipe cannot be read twice to check it first: its records before the damage are read, then one error."""
    body = "\n".join(json.dumps(r) for r in recs()).encode()
    out = list(audit.audit_paths(["-"], stdin=_Pipe(gzip.compress(body)[:-20])))
    assert out[-1].status == "invalid" and "the rest of the file is not read" in out[-1].findings[0].message
    assert [r.status for r in out[:-1]] == ["won"] * (len(out) - 1) and len(out) > 1


def test_directory_walk_sorted_with_suffixes(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.jsonl").write_text(json.dumps(game(id="z")) + "\n")
    (tmp_path / "a.json").write_text(json.dumps(game(id="a")))
    (tmp_path / "notes.txt").write_text("not a record")
    assert [r.id for r in audit.audit_paths([str(tmp_path)])] == ["a", "z"]


def test_missing_path_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        list(read_records([str(tmp_path / "nope.json")]))


def test_invalid_utf8_and_nul_lines(tmp_path):
    good = json.dumps(game()).encode()
    p = tmp_path / "x.jsonl"
    p.write_bytes(good.replace(b"foreman/1", b"forem\xffn/1") + b"\n\x00\x00\n" + good + b"\n")
    out = results(p)
    assert [o[1] for o in out] == ["invalid", "invalid", "won"]


def test_oversized_record_is_skipped(tmp_path):
    good = json.dumps(game()).encode()
    big = json.dumps(game(id="big", notes="x" * 5000)).encode()
    p = tmp_path / "x.jsonl"
    p.write_bytes(big + b"\n" + good + b"\n")
    out = results(p, max_record_bytes=4000)
    assert [o[1] for o in out] == ["invalid", "won"]
    assert "longer than 4000 bytes" in list(audit.audit_paths([str(p)], max_record_bytes=4000))[0].findings[0].message


def test_stream_memory_does_not_hold_the_file():
    # A generator over a stream: records come out one at a time before the stream ends.
    class Endless(io.RawIOBase):
        def __init__(self):
            self.line = json.dumps(game()).encode() + b"\n"
            self.sent = 0

        def readable(self):
            return True

        def readinto(self, b):
            if self.sent > 10_000:
                raise AssertionError("read too far ahead")
            n = min(len(b), len(self.line))
            b[:n] = self.line[:n]
            self.sent += 1
            return n

    it = read_stream(io.BufferedReader(Endless()), "endless")
    first = next(it)
    assert first.line == 1


# --- Hardening II: no good game lost by a bad neighbour ---

def _example_line() -> str:
    return json.dumps(game(id="good"))


def _validate(path, *extra):
    from typer.testing import CliRunner

    from foreman_cli.cli import app
    res = CliRunner().invoke(app, ["validate", "--json", str(path), *extra])
    return res, [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("name", ["nl.jsonl", "nl.json"])
def test_a_broken_first_record_over_two_lines_keeps_the_next_game(tmp_path, name):
    p = tmp_path / name
    p.write_text('{"id": "broken\n"}\n' + _example_line() + "\n")
    _, games = _validate(p)
    assert games[-1]["status"] == "won" and games[-1]["source"].endswith(":3")
    msg = games[0]["violations"][0]["message"]
    assert "control character at" not in msg and " at;" not in msg


@pytest.mark.parametrize("first", ["[1, 2]", "[" * 5000 + "]" * 5000])
def test_a_jsonl_file_is_json_lines_whatever_its_first_line(tmp_path, first):
    p = tmp_path / "a.jsonl"
    p.write_text(first + "\n" + _example_line() + "\n")
    _, games = _validate(p)
    assert [g["status"] for g in games] == ["invalid", "won"] and games[1]["source"].endswith(":2")


def test_the_record_limit_is_per_record_not_per_line(tmp_path):
    one = json.loads(_example_line())
    games = [dict(one, id=f"g{i}") for i in range(300)]
    p = tmp_path / "one-line.json"
    p.write_text(json.dumps(games))
    size = len(json.dumps(one))
    res, out = _validate(p, "--max-record-bytes", str(size + 100))
    assert len(out) == 300 and all(g["status"] == "won" for g in out) and len(p.read_text()) > 30 * size
    # a record over the limit is refused alone, in an array and in a pretty file alike
    res, out = _validate(p, "--max-record-bytes", str(size - 100))
    assert len(out) == 300 and all("longer than" in g["violations"][0]["message"] for g in out)
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(one, indent=2))
    _, out = _validate(pretty, "--max-record-bytes", "1000")
    assert out[0]["status"] == "invalid" and "longer than 1000 bytes" in out[0]["violations"][0]["message"]


@pytest.mark.parametrize("bad", ["0", "-5"])
def test_max_record_bytes_must_be_positive(tmp_path, bad):
    p = tmp_path / "a.jsonl"
    p.write_text(_example_line() + "\n")
    res, _ = _validate(p, "--max-record-bytes", bad)
    assert res.exit_code == 2


# --- chunks of lines for the workers of --jobs ---

from hypothesis import assume, given, settings, strategies as st  # noqa: E402

from foreman_cli.chunks import LineChunk, is_plain_lines, line_chunks  # noqa: E402

_LINE = st.one_of(
    st.just(b""), st.just(b"   "), st.just(b"\r"), st.just(b'{"a": 1}'), st.just(b"{broken"),
    st.just(b' \t{"a": 1} \r'), st.just('{"k": "é ♠"}'.encode()),
    st.binary(max_size=40).filter(lambda b: b"\n" not in b),
    st.integers(1, 120).map(lambda n: b'{"k": "' + b"x" * n + b'"}'),
)


def _by_chunks(path: str, limit: int, size: int, spans: bool = False) -> list:
    out = []
    for piece in line_chunks(path, limit, size):
        out.extend(piece.records(spans) if isinstance(piece, LineChunk) else [piece])
    return out


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(_LINE, max_size=30), bom=st.booleans(), last_newline=st.booleans(),
       limit=st.sampled_from([8, 30, 64, 1000]), size=st.sampled_from([1, 7, 50, 4096]))
def test_chunks_of_lines_give_the_records_read_records_gives(tmp_path_factory, lines, bom, last_newline, limit, size):
    """Cut anywhere, a JSON Lines file reads as one stream reads: line numbers, a BOM on line 1
    only, blank lines, bytes that are not UTF-8, and lines too long, inside a chunk or over a cut."""
    data = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + (b"\n" if last_newline and lines else b"")
    path = tmp_path_factory.mktemp("chunks") / "x.jsonl"
    path.write_bytes(data)
    assume(is_plain_lines(str(path)))  # what `pieces` cuts: gzip data (its first two bytes) is read as a stream
    read = list(read_records([str(path)], limit))
    assert _by_chunks(str(path), limit, size) == read
    chunked = _by_chunks(str(path), limit, size, spans=True)  # as a load reads them
    spans = [r.span for r in chunked]
    for r in chunked:
        r.span = None
    assert chunked == read  # the same records but for where they lie
    for r, span in zip(chunked, spans):  # each record's text is where its span says, in the file's bytes
        if r.text is None:
            assert span is None
        else:
            at, n = span
            assert data[at:at + n].decode("utf-8") == r.text


def test_a_long_line_over_a_cut_is_not_read_into_memory(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"x" * 5000 + b'\n{"b": 2}\n')
    pieces = list(line_chunks(str(path), limit=100, size=64))
    assert max(p.size for p in pieces if isinstance(p, LineChunk)) <= 64 + 100
    assert [r.line for r in _by_chunks(str(path), 100, 64)] == [1, 2, 3]


def test_a_bom_does_not_count_toward_the_record_limit(tmp_path):
    """A record of exactly --max-record-bytes after a BOM is read whole (it was cut in two)."""
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n{"b": 22}\n')
    got = list(read_records([str(path)], 8))
    assert [(r.line, r.text) for r in got] == [(1, '{"a": 1}'), (2, None)]


def test_chunks_shrink_near_the_end_of_a_long_file_so_the_workers_end_together(tmp_path):
    """A file of many chunks: whole chunks at first, then smaller ones down to an eighth, and
    every line read once, in order; a file of one to two chunks is cut the same way, and a file
    of one chunk is not cut."""
    path = tmp_path / "long.jsonl"
    lines = [b'{"n": %04d}' % i + b" " * 88 for i in range(2000)]  # 100 bytes a line, with its newline
    path.write_bytes(b"\n".join(lines) + b"\n")
    chunks = list(line_chunks(str(path), limit=1000, size=10_000))
    sizes = [c.size for c in chunks]
    assert sizes[:10] == [10_000] * 10  # 100 lines each, the cut just after a newline
    assert sizes[-2] < sizes[-8] < 5_000 and min(sizes[:-1]) >= 10_000 // 8  # the last: what is left
    assert sizes == sorted(sizes, reverse=True)
    assert [r.line for r in _by_chunks(str(path), 1000, 10_000)] == list(range(1, 2001))
    short = tmp_path / "short.jsonl"
    short.write_bytes(b"\n".join(lines[:150]) + b"\n")  # 15,000 bytes: a chunk and a half
    sizes = [c.size for c in line_chunks(str(short), limit=1000, size=10_000)]
    # a quarter of what is left each time, taken to the next line's end, then eighths of a chunk
    assert sizes == [3_800, 2_800, 2_100, 1_600, 1_300, 1_300, 1_300, 800]
    assert [r.line for r in _by_chunks(str(short), 1000, 10_000)] == list(range(1, 151))
    one = tmp_path / "one.jsonl"
    one.write_bytes(b"\n".join(lines[:100]) + b"\n")  # 10,000 bytes: one chunk
    assert [c.size for c in line_chunks(str(one), limit=1000, size=10_000)] == [10_000]
