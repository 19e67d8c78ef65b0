"""foreman on Spark (local[2]): the same results as `validate --json`, the same tables as `load` + `export`."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'foreman-cli[spark]')")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java, and there is no java on PATH", allow_module_level=True)

import duckdb  # noqa: E402

from foreman_cli import spark as fspark  # noqa: E402
from foreman_cli import archive as store  # noqa: E402
from foreman_cli.generate import generate  # noqa: E402
from foreman_cli.convert import write_game  # noqa: E402

pytestmark = pytest.mark.slow

FOREMAN = str(Path(sys.executable).parent / "foreman")


def _write_lines(path: Path, recs) -> None:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "wt") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """About 800 games in six files: series, breaches, claims, repeats, a series place held twice and
    one missing, broken lines, a UTF-16 file, a JSON array, notation."""
    d = tmp_path_factory.mktemp("spark-in")
    series = [r for r, _ in generate(240, 11, series_size=5, claims=0.3, max_deals=8)]
    # Two games of a series swap places: dealer succession is then broken at both.
    for a, b in ((6, 7), (101, 102), (206, 208)):  # the first pair is repeated in c-repeats: no check there
        series[a]["series"]["seq"], series[b]["series"]["seq"] = series[b]["series"]["seq"], series[a]["series"]["seq"]
    _write_lines(d / "a-series.jsonl", [r for i, r in enumerate(series) if i != 122])  # place 3 missing: SERIES_GAP
    breaches = []
    for n, code in enumerate(("REVOKE", "PASS_NOT_HELD", "CLAIM_REFUTED", "WRONG_DEALER", "CLAIM_MISMATCH")):
        breaches += [r for r, _ in generate(40, 20 + n, inject=code, max_deals=6, prefix=f"b{n}")]
    with open(d / "b-breaches.jsonl", "w") as f:
        for i, r in enumerate(breaches):
            f.write(json.dumps(r) + "\n")
            if i % 67 == 0:
                f.write('{"id": "broken", "players": [\n\n')  # a broken record, then a blank line
    with open(d / "b-breaches.jsonl", "ab") as f:
        f.write(b'{"id": "bj\xf6rn", "players": []}\n')  # a byte that is not UTF-8: one bad line, not the job
    repeats = series[:40] + [dict(r, stake="9.99") for r in series[40:60]]  # identical, then changed
    repeats += [dict(reversed(r.items())) for r in series[60:70]]  # the same records, their keys in another order
    repeats.append(dict(series[80], id="c-shared"))  # another game at game 80's place: SERIES_SEQ_SHARED
    repeats.append(dict(series[123], id="c-shared-gap"))  # a place shared after the gap: both findings
    repeats += [r for r, _ in generate(120, 31, max_deals=6, series_size=4, prefix="c")]
    _write_lines(d / "c-repeats.jsonl.gz", repeats)
    # A file saved by a Windows tool as UTF-16: one error for the file, as foreman's reader gives.
    (d / "c-wide.jsonl").write_bytes("".join(json.dumps(r) + "\r\n" for r in series[:30]).encode("utf-16"))
    array = [r for r, _ in generate(200, 41, max_deals=6, prefix="d")]
    (d / "d-array.json").write_text(json.dumps(array, indent=1))
    # a scorer's notation, half its deals records of the play (foreman/1.2)
    typed = [r for r, _ in generate(30, 51, max_deals=4, prefix="e", claims=0.3, play_only=0.5)]
    (d / "e-typed.fmn").write_text("\n".join(map(write_game, typed)) + "game e-broken\nplayers a b c\ndeal a\n1. 7S KX 9\n"
                                   + "game e-stranger\nplayers a b c\n\ndeal zed\n")
    return d


@pytest.fixture(scope="module")
def spark():
    s = fspark.session("local[2]")
    s.sparkContext.setLogLevel("ERROR")
    # Small splits, so that a file of lines is read by several tasks, each numbering its lines from
    # where the split before it ended, as a cluster splits a large file.
    s.conf.set("spark.sql.files.maxPartitionBytes", str(512 * 1024))
    yield s
    s.stop()


def _norm(d: dict) -> dict:
    d = dict(d)
    for k in ("deciding_tricks", "net"):
        if d[k] is not None:
            d[k] = dict(d[k])
    d["violations"] = [{**v, "evidence": json.loads(v["evidence"]) if isinstance(v["evidence"], str) else v["evidence"]}
                       for v in d["violations"]]
    return d


def test_validate_on_spark_equals_validate_json_game_for_game(spark, inputs):
    frame = fspark.records_frame(spark, [str(inputs)])
    assert frame.rdd.getNumPartitions() > len(list(inputs.iterdir()))  # some file was read in several splits
    got = [r.asDict(recursive=True) for r in fspark.validate(frame).collect()]
    out = subprocess.run([FOREMAN, "validate", "--json", str(inputs)], capture_output=True, text=True).stdout
    want = [json.loads(line) for line in out.splitlines()]
    assert len(want) >= 800
    codes = {v["code"] for d in want for v in d["violations"]}
    assert {"DUPLICATE_GAME", "DEALER_SUCCESSION", "SERIES_SEQ_SHARED", "SERIES_GAP", "RECORD_SYNTAX", "REVOKE",
            "CLAIM_REFUTED"} <= codes
    both = next(d for d in want if d["id"] == "c-shared-gap")
    assert [v["code"] for v in both["violations"]][-2:] == ["SERIES_SEQ_SHARED", "SERIES_GAP"]  # after its own
    repeats = {(v["evidence"]["identical"], v["evidence"]["same_record"])
               for d in want for v in d["violations"] if v["code"] == "DUPLICATE_GAME"}
    assert {(True, True), (False, True), (False, False)} <= repeats
    assert sum("c-wide.jsonl" in d["source"] for d in got) == 1  # the UTF-16 file, one error
    assert any("not UTF-8 text: byte 0xf6" in v["message"] for d in got for v in d["violations"])
    key = lambda d: d["source"]  # noqa: E731
    assert sorted(map(_norm, got), key=key) == sorted(map(_norm, want), key=key)


def test_whole_files_mode_reads_as_foreman_reads(spark, inputs):
    frame = fspark.records_frame(spark, [str(inputs / "b-breaches.jsonl")], whole_files=True)
    got = sorted((r["source"], r["status"]) for r in fspark.validate(frame).select("source", "status").collect())
    out = subprocess.run([FOREMAN, "validate", "--json", str(inputs / "b-breaches.jsonl")],
                         capture_output=True, text=True).stdout
    assert got == sorted((d["source"], d["status"]) for d in map(json.loads, out.splitlines()))


def _rows(con, path: str, cols: list[str]) -> list[tuple]:
    sel = ", ".join(f'"{c}"::VARCHAR' for c in cols)
    return sorted(con.execute(f"SELECT {sel} FROM read_parquet('{path}/*.parquet')").fetchall(), key=repr)


def test_load_on_spark_equals_load_then_export_row_for_row(spark, inputs, tmp_path):
    out = tmp_path / "spark-archive"
    for name, df in fspark.load(fspark.records_frame(spark, [str(inputs)])).items():
        df.write.mode("overwrite").parquet(str(out / name))
    db, exp = tmp_path / "ref.duckdb", tmp_path / "export"
    # Exit 1: the input holds invalid records and conflicting repeats, which load names and leaves out.
    assert subprocess.run([FOREMAN, "load", str(inputs), "--db", str(db)], capture_output=True).returncode == 1
    subprocess.run([FOREMAN, "export", "--parquet", str(exp), "--db", str(db)], check=True, capture_output=True)
    con = duckdb.connect()
    for name in store.TABLES:
        if name in store.ANALYSIS_TABLES:
            assert not (out / name).exists()
            continue
        cols = [c[0] for c in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{exp}/{name}/*.parquet')").fetchall()]
        spark_cols = [c[0] for c in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{out}/{name}/*.parquet')")
                      .fetchall()]
        assert spark_cols == cols, name
        cols = [c for c in cols if c != "loaded_at"]  # the time of each load
        assert _rows(con, str(out / name), cols) == _rows(con, str(exp / name), cols), name
    games = con.execute(f"SELECT count(*) FROM read_parquet('{out}/games/*.parquet')").fetchone()[0]
    late = con.execute(f"SELECT count(*) FROM read_parquet('{out}/findings/*.parquet') "
                       "WHERE code = 'DEALER_SUCCESSION'").fetchone()[0]
    warned = con.execute(f"SELECT count(*) FILTER (code = 'SERIES_SEQ_SHARED'), count(*) FILTER (code = 'SERIES_GAP') "
                         f"FROM read_parquet('{out}/findings/*.parquet')").fetchone()
    assert games > 700 and late > 0 and warned == (2, 2)


def test_load_on_spark_with_analysis_equals_load_analyze(spark, tmp_path):
    samples = Path(__file__).resolve().parent.parent / "samples"
    chosen = [str(samples / n) for n in ("01-clean-win.json", "09-contested-claim.json")]
    out = tmp_path / "spark-archive"
    for name, df in fspark.load(fspark.records_frame(spark, chosen), analyze=5000).items():
        df.write.mode("overwrite").parquet(str(out / name))
    db, exp = tmp_path / "ref.duckdb", tmp_path / "export"
    subprocess.run([FOREMAN, "load", *chosen, "--db", str(db), "--analyze", "--budget", "5000"], check=True,
                   capture_output=True)
    subprocess.run([FOREMAN, "export", "--parquet", str(exp), "--db", str(db)], check=True, capture_output=True)
    con = duckdb.connect()
    for name in store.ANALYSIS_TABLES:
        cols = [c[0] for c in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{exp}/{name}/*.parquet')").fetchall()]
        want = _rows(con, str(exp / name), cols)
        assert want and _rows(con, str(out / name), cols) == want, name
    split = con.execute(f"SELECT count(par) FROM read_parquet('{out}/deal_accuracy/*.parquet')").fetchone()[0]
    assert split == 6  # both deals wholly analysed: par, gifts and luck for each player


def test_the_job_refuses_a_bad_command_line():
    proc = subprocess.run([sys.executable, "-m", "foreman_cli.spark", "check", "in"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("usage: spark-submit")
    proc = subprocess.run([sys.executable, "-m", "foreman_cli.spark", "validate", "in", "out", "--rule", "quota=1-2-3"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "quota" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "foreman_cli.spark", "validate", "in", "out", "--analyze", "5000"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "--analyze NODES (load only" in proc.stderr


def test_spark_submit_runs_the_job_file_and_duckdb_reads_its_parquet(inputs, tmp_path):
    # What docs/scale.md tells a cluster user to run, on local[2]: spark-submit and spark_submit.py (one JVM
    # for the test: both ways in run foreman_cli.spark's main, whose command line the test above checks).
    import os
    submit = Path(sys.executable).parent / "spark-submit"
    job = Path(fspark.__file__).parent / "spark_submit.py"
    out = tmp_path / "submitted"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    start = [str(submit), "--master", "local[2]", str(job)] if submit.exists() else \
        [sys.executable, "-m", "foreman_cli.spark", "--master", "local[2]"]
    proc = subprocess.run([*start, "validate", str(inputs / "d-array.json"), str(out)], capture_output=True, text=True,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    n = duckdb.connect().execute(f"SELECT count(*), count(*) FILTER (status = 'won') "
                                 f"FROM read_parquet('{out}/*.parquet')").fetchone()
    assert n[0] == 200 and n[1] > 0


def test_a_job_spark_stops_is_one_line_and_whole_files_reads_the_file_as_foreman_does(spark, inputs, tmp_path, capsys):
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes((inputs / "c-repeats.jsonl.gz").read_bytes()[:-20])  # a gzip file cut short
    out = tmp_path / "results"
    assert fspark.run_job(spark, "validate", [str(cut)], str(out)) == 2
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 2 and said[0].startswith("foreman: the Spark job stopped: ") and "cut.jsonl.gz" in said[0]
    assert said[1].startswith("hint: ") and "--whole-files" in said[1]
    # The near miss: read whole by foreman's reader, the same file is one error and the job ends well.
    assert fspark.run_job(spark, "validate", [str(cut)], str(out), whole_files=True) == 0
    rows = duckdb.connect().execute(f"SELECT status, violations[1].code FROM read_parquet('{out}/*.parquet')").fetchall()
    assert rows == [("invalid", "RECORD_SYNTAX")]
