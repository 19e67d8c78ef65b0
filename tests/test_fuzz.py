"""Hostile input: every damaged file or record ends in a finding or a one-line error, never a traceback."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from builders import game
from foreman_cli import audit
from foreman_cli.cli import app
from foreman_cli.reader import read_stream

FUZZ = Path(__file__).parent / "fuzz"
EXPECT = json.loads((FUZZ / "EXPECT.json").read_text())
EXAMPLES = int(os.environ.get("FOREMAN_FUZZ_EXAMPLES", "150"))
runner = CliRunner()


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_corpus_file(name):
    read, replayable, code = EXPECT[name]
    path = str(FUZZ / name)
    res = runner.invoke(app, ["validate", "--json", path])
    assert res.exit_code in (0, 1), res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    rows = [json.loads(x) for x in res.stdout.splitlines()]  # data on stdout; a warning goes to stderr
    if read >= 0:
        assert len(rows) == read
        assert sum(r["status"] != "invalid" for r in rows) == replayable
    codes = {v["code"] for r in rows for v in r["violations"]}
    if code:
        bad = [r for r in rows if any(v["code"] == code for v in r["violations"])]
        assert bad, rows
        assert all(r["source"].startswith(f"{path}:") for r in bad)
        assert all(r["status"] == "invalid" for r in bad) or code not in ("RECORD_SYNTAX", "RECORD_SCHEMA")
    else:
        assert not codes & {"RECORD_SYNTAX", "RECORD_SCHEMA"}, codes
    # every replayable game in the file is one of the good ones, clean
    assert all(not r["violations"] or r["status"] == "invalid" or r["id"] == "bad"
               or {v["code"] for v in r["violations"]} <= {"DUPLICATE_GAME"} for r in rows)
    human = runner.invoke(app, ["validate", path])
    assert human.exit_code in (0, 1) and "Traceback" not in human.output


def test_whole_corpus_through_every_command(tmp_path):
    cert = tmp_path / "f.cert.json"
    for args in (["validate", str(FUZZ)], ["validate", "--json", "--jobs", "2", str(FUZZ)], ["settle", str(FUZZ)],
                 ["settle", "--json", str(FUZZ), "--certificate", str(cert)], ["verify", str(cert), str(FUZZ)],
                 ["load", str(FUZZ), "--db", str(tmp_path / "f.duckdb")], ["fairness", str(FUZZ)],
                 ["analyze", str(FUZZ), "--from-trick", "15"], ["stats", "--db", str(tmp_path / "f.duckdb")]):
        res = runner.invoke(app, args)
        assert res.exit_code in (0, 1), (args, res.output[-2000:])
        assert res.exception is None or isinstance(res.exception, SystemExit), (args, res.exception)


LINES = [json.dumps(game(id=f"g{i}"), separators=(",", ":")).encode() for i in range(3)]


def mutate(line: bytes, edits, inside: bool = False) -> bytes:
    """A line with each (op, position, bytes) edit made in turn: insert, delete or replace; with
    `inside`, nothing is inserted after the line's last byte (the edits stay in its record)."""
    buf = bytearray(line)
    for op, pos, data in edits:
        pos %= len(buf) + (0 if inside and op == "insert" and buf else 1)
        if op == "insert":
            buf[pos:pos] = data
        elif op == "delete":
            del buf[pos:pos + len(data)]
        else:
            buf[pos:pos + len(data)] = data
    return bytes(buf)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 10**6),
                                st.binary(min_size=1, max_size=4)), min_size=1, max_size=6))
def test_byte_mutations_of_a_record(edits):
    mid = mutate(LINES[1], [(op, pos, data.replace(b"\n", b" ").replace(b"\r", b" ")) for op, pos, data in edits])
    text = LINES[0] + b"\n" + mid + b"\n" + LINES[2] + b"\n"
    import io
    results = list(audit.audit_records(read_stream(io.BytesIO(text), "m.jsonl")))
    assert results[0].status == "won" and results[-1].status == "won"
    assert results[-1].id == "g2" and results[-1].source == "m.jsonl:3"
    for r in results:
        for f in r.findings:
            assert f.message and "\n" not in f.message


@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None)
@given(cut=st.integers(0, 10**6), flip=st.integers(0, 10**6), byte=st.integers(1, 255))
@example(cut=5603, flip=382, byte=250)  # a flip that decodes into another valid record, then a cut: found in CI
def test_gzip_damage(cut, flip, byte):
    import io
    z = bytearray(gzip.compress(b"\n".join(LINES) + b"\n"))
    z[flip % len(z)] ^= byte
    z = z[: max(2, cut % (len(z) + 1))]
    results = list(audit.audit_records(read_stream(io.BytesIO(bytes(z)), "z.jsonl.gz")))
    assert all(r.status in ("won", "invalid") for r in results)


def test_a_100_mb_line_is_skipped_in_bounded_memory(tmp_path):
    p = tmp_path / "big.jsonl"
    with open(p, "wb") as f:
        f.write(LINES[0] + b"\n")
        f.write(b'{"format": "foreman/1", "notes": "')
        chunk = b"x" * (1 << 20)
        for _ in range(100):
            f.write(chunk)
        f.write(b'"}\n')
        f.write(LINES[2] + b"\n")
    # The child reports its own peak (VmHWM): ru_maxrss survives execve, so a child of a big
    # pytest process would report pytest's size.
    code = ("import sys\nfrom foreman_cli.cli import app\ntry:\n    app(sys.argv[1:])\n"
            "except SystemExit:\n    pass\nfinally:\n    hwm = [x for x in open('/proc/self/status') if x.startswith('VmHWM')]\n"
            "    print(hwm[0].split()[1], file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code, "validate", "--json", "--jobs", "1", str(p)],
                          capture_output=True, text=True)
    rows = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [r["status"] for r in rows] == ["won", "invalid", "won"]
    assert "longer than" in rows[1]["violations"][0]["message"]
    peak = int(proc.stderr.strip().splitlines()[-1])
    assert peak < 150 * 1024, f"peak RSS {peak} KiB"


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 10**6),
                                st.sampled_from([b"\n", b"\n{", b'"\n', b"\n[", b"[", b"{", b"NaN", b"\n\n"])),
                      min_size=1, max_size=4))
def test_newlines_in_the_first_record_lose_no_later_game(edits):
    import io
    # Inside the record: a '[' after it would open an array of the records after it (docs/format.md).
    text = mutate(LINES[0], edits, inside=True) + b"\n" + LINES[1] + b"\n" + LINES[2] + b"\n"
    opens_array = text.lstrip()[:1] == b"["  # then the file is an array, and an error ends it (docs/format.md)
    for lines in (True, False) if not opens_array else (True,):  # a .jsonl name; the layout guessed
        results = list(audit.audit_records(read_stream(io.BytesIO(text), "m", lines=lines)))
        assert [r.id for r in results[-2:]] == ["g1", "g2"], (lines, [r.source for r in results])
        assert all(r.status == "won" for r in results[-2:])


_ext = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
                    | st.text(max_size=5),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3),
                    max_leaves=40)


@settings(max_examples=EXAMPLES, deadline=None)
@given(ext=_ext, depth=st.integers(0, 90))
def test_both_decoders_judge_ext_alike(ext, depth):
    from foreman_cli import records
    for _ in range(depth):
        ext = {"x": ext}
    text = json.dumps(dict(game(id="e"), ext={"v": ext}))
    fast, careful = records.decode(text), records.decode_careful(text)
    kind = lambda r: (r.code, r.problems[0].message) if isinstance(r, records.Invalid) else "ok"
    assert kind(fast) == kind(careful)


def _nested(depth: int, kind: str) -> str:
    return ("[" * depth + "]" * depth) if kind == "array" else ('{"a":' * depth + "1" + "}" * depth)


DEEP_FIELDS = ["id", "players", "deals", "played_at", "series", "rules", "stake", "currency", "claimed", "notes", "ext",
               "deals.0", "deals.0.dealer", "deals.0.hands", "deals.0.hands.alice", "deals.0.kitty", "deals.0.passes",
               "deals.0.passes.0", "deals.0.discards", "deals.0.tricks", "deals.0.tricks.0", "deals.0.tricks.0.cards",
               "deals.0.claim", "claimed.tricks", "claimed.payments"]


def _deep_record(field: str, kind: str, depth: int = 10_000) -> str:
    """A good record with one field replaced by a value nested `depth` deep (spliced in as text)."""
    rec = game(id=f"deep-{field}-{kind}", format="foreman/1.1", stake="1.00",
               claimed={"winner": "bob", "tricks": {"bob": 12}, "payments": []})
    rec["deals"][0]["claim"] = {"by": "bob", "accepted": True}
    holder, *path = field.split(".")
    target = rec
    keys = [holder, *path]
    for k in keys[:-1]:
        target = target[int(k)] if isinstance(target, list) else target[k]
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = "@@DEEP@@"
    else:
        target[last] = "@@DEEP@@"
    return json.dumps(rec).replace('"@@DEEP@@"', _nested(depth, kind))


def test_nesting_10000_deep_in_every_field_through_every_command(tmp_path):
    """No RecursionError, MemoryError or traceback from any command: each deep record costs itself."""
    folder = tmp_path / "deep"
    folder.mkdir()
    files = []
    for field in DEEP_FIELDS:
        for kind in ("array", "object"):
            path = folder / f"{field}-{kind}.jsonl"
            path.write_text(good(1) + "\n" + _deep_record(field, kind) + "\n")
            files.append(path)
    cert = tmp_path / "deep.cert.json"
    commands = [["validate", folder], ["validate", "--json", folder], ["settle", folder, "--certificate", cert],
                ["settle", "--json", folder], ["load", folder, "--db", tmp_path / "deep.duckdb"],
                ["fairness", folder], ["analyze", folder, "--deal", "1", "--from-trick", "13"]]
    for args in commands:
        res = runner.invoke(app, [str(a) for a in args])
        assert res.exit_code in (0, 1), (args, res.output[-1500:])
        assert res.exception is None or isinstance(res.exception, SystemExit), (args, res.exception)
        assert "Traceback" not in res.output and "RecursionError" not in res.output, args
    res = runner.invoke(app, ["verify", str(cert), str(folder)])
    assert res.exit_code == 0, res.output
    for path in files[:6]:
        for args in (["replay", path, "--game", "good-1"], ["report", path, "--game", "good-1", "-o", tmp_path / "p.html"]):
            res = runner.invoke(app, [str(a) for a in args])
            assert res.exit_code in (0, 1), (args, res.output[-1500:])
    deep_cert = tmp_path / "deep-cert.json"
    deep_cert.write_text('{"certificate": "foreman-settlement-certificate/1", "games": ' + _nested(10_000, "array") + "}")
    res = runner.invoke(app, ["verify", str(deep_cert), str(folder)])
    assert res.exit_code == 2 and "Traceback" not in res.output


def good(i: int) -> str:
    return json.dumps(game(id=f"good-{i}"))
