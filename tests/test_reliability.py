"""Faults: a load killed or starved of disk leaves whole games; money is exact whatever the stake."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import re
import resource
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import base_deal, game, run, run_many
from foreman_cli import money, archive as store
from foreman_cli.generate import generate
from foreman_cli.settle import fewest_transfers, settle

FOREMAN = str(Path(sys.executable).parent / "foreman")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "games.jsonl"
    with open(path, "w") as f:
        for rec, _ in generate(1500, 77, max_deals=10, stacked=0.2):
            f.write(json.dumps(rec) + "\n")
    ref = str(path.parent / "reference.duckdb")
    subprocess.run([FOREMAN, "load", str(path), "--db", ref], check=True, capture_output=True)
    return path, ref


def per_game_counts(db: str) -> dict[str, tuple]:
    con = duckdb.connect(db, read_only=True)
    try:
        rows = con.execute("""
            SELECT g.id,
                   (SELECT count(*) FROM game_players x WHERE x.game_id = g.id),
                   (SELECT count(*) FROM deals x WHERE x.game_id = g.id),
                   (SELECT count(*) FROM deal_players x WHERE x.game_id = g.id),
                   (SELECT count(*) FROM passes x WHERE x.game_id = g.id),
                   (SELECT count(*) FROM tricks x WHERE x.game_id = g.id),
                   (SELECT count(*) FROM plays x WHERE x.game_id = g.id),
                   (SELECT count(*) FROM findings x WHERE x.game_id = g.id),
                   (SELECT count(*) FROM payouts x WHERE x.game_id = g.id)
            FROM games g""").fetchall()
        orphans = sum(con.execute(f"SELECT count(*) FROM {t} WHERE game_id NOT IN (SELECT id FROM games)").fetchone()[0]
                      for t in store.TABLES if t != "games")
    finally:
        con.close()
    assert orphans == 0, "rows of a game that is not there"
    return {r[0]: r[1:] for r in rows}


def check_whole_games(db: str, ref: str) -> int:
    got, want = per_game_counts(db), per_game_counts(ref)
    assert set(got) <= set(want)
    for gid, counts in got.items():
        assert counts == want[gid], f"game {gid} is partly loaded"
    return len(got)


@pytest.mark.slow
def test_load_killed_mid_way_leaves_whole_games_and_resumes(corpus, tmp_path):
    path, ref = corpus
    db = tmp_path / "killed.duckdb"
    proc = subprocess.Popen([FOREMAN, "load", str(path), "--db", str(db), "--batch", "50"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    # Kill it once some batches are in: the WAL has grown, but the load is far from done.
    while time.monotonic() < deadline and proc.poll() is None:
        wal = Path(str(db) + ".wal")
        if (wal.exists() and wal.stat().st_size > 2_000_000) or (db.exists() and db.stat().st_size > 4_000_000):
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the load finished before it could be killed: make the corpus larger"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    loaded = check_whole_games(str(db), ref)
    assert 0 < loaded < 1500
    res = subprocess.run([FOREMAN, "load", str(path), "--db", str(db)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"{1500 - loaded:,} games added, {loaded:,} unchanged" in res.stdout
    assert check_whole_games(str(db), ref) == 1500
    assert store.counts(str(db)) == store.counts(ref)


def _small_files():
    # A full disk, as this process can make one: a file size limit turns writes past it into
    # EFBIG errors (SIGXFSZ ignored), as ENOSPC would.
    resource.setrlimit(resource.RLIMIT_FSIZE, (3_000_000, 3_000_000))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


@pytest.mark.slow
def test_full_disk_is_a_clear_error_and_leaves_whole_games(corpus, tmp_path):
    path, ref = corpus
    db = tmp_path / "full.duckdb"
    res = subprocess.run([FOREMAN, "load", str(path), "--db", str(db), "--batch", "50"], capture_output=True,
                         text=True, preexec_fn=_small_files)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr and res.stderr.startswith("foreman: ") and "disk is full" in res.stderr
    assert len(res.stderr.strip().splitlines()) <= 2
    check_whole_games(str(db), ref)
    again = subprocess.run([FOREMAN, "load", str(path), "--db", str(db)], capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert check_whole_games(str(db), ref) == 1500


# --- exact money ---

stakes = st.one_of(
    st.just("0"), st.just("0.00"),
    st.decimals(min_value=0, max_value=Decimal(10) ** 30, places=2, allow_nan=False, allow_infinity=False).map(str),
    st.integers(0, 10**35).map(str),
    st.tuples(st.integers(0, 10**12), st.integers(1, 25)).map(lambda t: f"{t[0] // 10**t[1]}.{t[0] % 10**t[1]:0{t[1]}d}"),
)


@settings(max_examples=200, deadline=None)
@given(stake=stakes, k2=st.booleans())
def test_nets_sum_to_exactly_zero_for_any_stake(stake, k2):
    rec = game(stake=stake)
    r = run(rec)
    assert money.total(r.net.values()) == 0
    s = money.amount(stake)
    assert r.net["bob"] == money.times(s, 4)  # both others short of quota: 2s + 2s
    assert r.to_dict()["net"]["bob"] == money.fmt(money.times(s, 4))
    assert not money.fmt(r.net["alice"]).startswith("-") or not r.net["alice"].is_zero()


@settings(max_examples=80, deadline=None)
@given(games=st.lists(st.tuples(stakes, st.sampled_from(["GBP", "EUR", None]), st.integers(0, 2)),
                      min_size=1, max_size=8))
def test_settlement_settles_exactly_for_any_stakes(games):
    recs = [game([base_deal(dealer)], id=f"g{i}", stake=stake, currency=cur)
            for i, (stake, cur, dealer) in enumerate(games)]
    s = settle(run_many(recs))
    for cur, bal in s.balances.items():
        assert money.total(bal.values()) == 0
        left = dict(bal)
        for t in s.transfers:
            if t.currency == cur:
                left[t.payer] = money.add(left[t.payer], t.amount)
                left[t.payee] = money.add(left[t.payee], t.amount.copy_negate())
        assert all(v.is_zero() for v in left.values())
        assert len([t for t in s.transfers if t.currency == cur]) <= max(len([v for v in bal.values() if v]) - 1, 0)
    assert fewest_transfers({}) == []


def test_no_float_on_the_money_path():
    for module in ("money.py", "settle.py", "engine.py", "results.py"):
        text = (ROOT / "foreman_cli" / module).read_text()
        code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
        assert not re.search(r"\bfloat\b|\d\.\d+\s*\*|/\s*\d", code), f"{module} touches floats"


def test_amount_rounding_is_a_loud_failure():
    import decimal
    with pytest.raises(decimal.Inexact):
        money.EXACT.multiply(Decimal("1." + "1" * 150), Decimal("1." + "1" * 150))


def _interrupt_when(args: list[str], ready) -> tuple[int, str]:
    """Run foreman, send Ctrl-C once `ready()` holds (or after 20 s), return exit code and stderr."""
    proc = subprocess.Popen([FOREMAN, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not ready() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    try:
        err = proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("foreman did not stop within 60 s of Ctrl-C") from None
    return proc.returncode, err


@pytest.mark.slow
def test_ctrl_c_during_load_with_workers_is_one_line_and_keeps_whole_batches(corpus, tmp_path):
    path, ref = corpus
    db = tmp_path / "interrupted.duckdb"
    wal = Path(str(db) + ".wal")
    # The corpus twice over: the load lasts well past the signal. The signal goes once a batch is
    # committed (the write-ahead log holds more than the tables' creation, about 13 kB; a batch of
    # 50 games is about 1 MB), so it lands mid-load on any machine.
    code, err = _interrupt_when(["load", str(path), str(path), "--db", str(db), "--batch", "50", "--jobs", "2"],
                                lambda: wal.exists() and wal.stat().st_size > 500_000)
    assert (code, err) == (130, "foreman: interrupted\n")
    n = check_whole_games(str(db), ref)
    # Every game the workers had sent back is kept: the load stops at a boundary of the chunks
    # they read (a game a line), and it really was stopped mid-way.
    from foreman_cli.chunks import line_chunks
    ends = list(itertools.accumulate(sum(1 for _ in c.records()) for c in line_chunks(str(path))))
    assert n in ends and 0 < n < 1500, (n, ends)
    subprocess.run([FOREMAN, "load", str(path), "--db", str(db)], check=True, capture_output=True)
    assert check_whole_games(str(db), ref) == 1500


_CTRL_C_AT_CALL = """import os, signal, sys
calls = 0
def count(frame, event, arg):
    global calls
    if event == "call":
        calls += 1
        if calls == {n}:
            sys.setprofile(None)
            os.kill(os.getpid(), signal.SIGINT)
sys.argv = ["foreman", "validate", {path!r}, {path!r}]
from foreman_cli.__main__ import run  # as the console script does; from here on the run is foreman's
sys.setprofile(count)
run()
"""


@pytest.mark.parametrize("at_call", [1, 30, 300, 3_000, 30_000, 300_000])
def test_ctrl_c_during_start_up_is_one_line(corpus, at_call):
    """Ctrl-C at the n-th Python call of a run (the imports and start-up for the small n, the work
    for the large ones): one line and exit 130 wherever it lands, whatever the machine's speed. (A
    count of calls, not a delay: a signal sent after 0.05 s landed before foreman had started on a
    busy machine, in the interpreter's own start-up, which is Python's.)"""
    path, _ = corpus
    done = subprocess.run([sys.executable, "-c", _CTRL_C_AT_CALL.format(n=at_call, path=str(path))],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (130, "foreman: interrupted\n")


_CTRL_C_IN_THE_POOL = """import multiprocessing, os, signal, threading, time
from foreman_cli import workers
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    list(workers.ordered_map(time.sleep, [0.2] * 200, 2))
except KeyboardInterrupt:
    print("interrupted", multiprocessing.active_children())
"""


def _ends(code: str) -> tuple[int, str, str]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=30)  # EOF only once every process holding the pipes has ended
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("the interrupted pool did not end") from None
    return proc.returncode, out, err


def test_ctrl_c_in_the_pool_ends_it_with_its_workers():
    assert _ends(_CTRL_C_IN_THE_POOL) == (0, "interrupted []\n", "")


def test_a_ctrl_c_once_the_command_has_ended_leaves_its_exit_code():
    """After the command, while Python shuts down, Ctrl-C is ignored: the exit code stays the
    command's (a stress run of Ctrl-Cs as validate ended: 7 in 60 died of the signal, no message)."""
    code = ("import signal, sys\nsys.argv = ['foreman', 'codes', '--json']\nfrom foreman_cli.__main__ import run\n"
            "try:\n    run()\nexcept SystemExit as e:\n"
            "    print(e.code, signal.getsignal(signal.SIGINT) is signal.SIG_IGN, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stderr == "0 True\n" and done.stdout.startswith("[")


def test_ctrl_c_during_validate_with_workers_is_one_line(corpus):
    path, _ = corpus
    proc = subprocess.Popen([FOREMAN, "validate", "--json", str(path), "--jobs", "2", "--max-record-bytes", "100000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("{")  # it is running: the workers have sent results
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (130, "foreman: interrupted\n")
    assert len(out.splitlines()) < 1499


@pytest.mark.slow
def test_settle_json_memory_stays_flat_on_many_bad_lines(tmp_path):
    # 60,000 lines of {} and one game: the ledger keeps the balances, not the lines (before: ~200 MB
    # here and 4.4 GB for a million; now about 45 MB for a million).
    p = tmp_path / "many.jsonl"
    with open(p, "w") as f:
        f.write("{}\n" * 60_000)
        f.write(json.dumps(game(id="g", stake="1.00")) + "\n")
    out = tmp_path / "ledger.json"
    code, peak_kb = peak_of([FOREMAN, "settle", "--json", str(p)], out)
    doc = json.loads(out.read_text())
    assert code == 1 and len(doc["games"]) == 60_001 and len(doc["excluded"]) == 60_000
    assert doc["transfers"] and peak_kb < 100_000, f"peak {peak_kb} KB"


@pytest.fixture(scope="module")
def million_plays(tmp_path_factory) -> str:
    """An archive of the samples, its plays table grown past a million rows (what query reads)."""
    db = str(tmp_path_factory.mktemp("million") / "big.duckdb")
    subprocess.run([FOREMAN, "load", str(ROOT / "samples"), "--db", db, "-q"], check=True)
    con = duckdb.connect(db)
    # 23,000 more deals of 16 tricks of one of the games: 1,104,000 more plays in the view.
    con.execute("""INSERT INTO deal_facts SELECT g.id, 100 + i, g.players[1], 0, false, 16, [], [],
                   [[], [], []], [8, 5, 3], [0, 0, 0], [], [], [], [], list_transform(range(16), lambda k: 0),
                   list_transform(range(16), lambda k: 0), list_transform(range(16), lambda k: [8, 7, 6]), 15
                   FROM (SELECT * FROM games ORDER BY id LIMIT 1) g, range(23000) t(i)""")
    con.close()
    return db


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["--csv", "--json"])
def test_query_streams_a_million_plays_in_flat_memory(million_plays, tmp_path, fmt):
    out = tmp_path / "plays.out"
    code, peak_kb = peak_of([FOREMAN, "query", "SELECT * FROM plays", "--db", million_plays, fmt], out)
    with open(out) as f:
        lines = sum(1 for _ in f)
    assert code == 0 and lines == store.query(million_plays, "SELECT count(*) FROM plays").rows[0][0] + (fmt == "--csv")
    _, idle_kb = peak_of([FOREMAN, "query", "SELECT 1", "--db", million_plays, fmt], tmp_path / "one.out")
    # Streamed, the rows cost almost nothing beyond start-up (held whole, they took 360 MB more).
    assert peak_kb < 200_000 and peak_kb - idle_kb < 50_000, f"peak {peak_kb} KB, {idle_kb} KB for one row"


def test_query_table_shows_the_limit_and_counts_the_rest_in_flat_memory(million_plays, tmp_path):
    out = tmp_path / "plays.txt"
    code, peak_kb = peak_of([FOREMAN, "query", "SELECT * FROM plays", "--db", million_plays], out)
    assert code == 0 and len(out.read_text().splitlines()) == 51  # the header and 50 rows
    assert peak_kb < 200_000, f"peak {peak_kb} KB"


# A forked child's high-water mark counts the pages it shared with its parent before exec, and
# this test process is large: a small wrapper process runs the command and reports its peak.
_PEAK = """import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    code = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"""


def peak_of(cmd: list[str], stdout: Path) -> tuple[int, int]:
    """Run a command with its stdout to a file; return its exit code and peak RSS in KB."""
    res = subprocess.run([sys.executable, "-c", _PEAK, str(stdout), *cmd], capture_output=True, text=True, check=True)
    code, kb = res.stdout.split()
    return int(code), int(kb)


_SMALL_FILES = """import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
sys.argv = ["foreman", *sys.argv[1:]]
from foreman_cli.__main__ import run
run()
"""


@pytest.mark.parametrize("kind", ["report", "certificate", "fairness", "export"])
def test_a_write_that_fails_leaves_the_old_file_and_no_part(tmp_path, kind):
    """Every file foreman writes goes whole or not at all: a write that fails (here past a file size
    limit, as on a full disk) leaves what was there before and no temporary file beside it."""
    samples = str(ROOT / "samples")
    target = tmp_path / ("data.parquet" if kind == "export" else "out")
    args = {"report": ["report", str(ROOT / "samples" / "02-four-deals.json"), "-o", str(target)],
            "certificate": ["settle", samples, "--certificate", str(target)],
            "fairness": ["fairness", samples, "--html", str(target)],
            "export": ["export", "--parquet", str(tmp_path / "x"), "--db", str(tmp_path / "a.duckdb")]}[kind]
    if kind == "export":
        subprocess.run([FOREMAN, "load", samples, "--db", str(tmp_path / "a.duckdb")], capture_output=True, check=False)
        (tmp_path / "x" / "games").mkdir(parents=True)
        target = tmp_path / "x" / "games" / "data.parquet"
    target.write_text("the good file of yesterday")
    done = subprocess.run([sys.executable, "-c", _SMALL_FILES, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("foreman: ") and "untouched" in done.stderr
    assert target.read_text() == "the good file of yesterday"
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".part")]


def test_a_folder_with_entries_that_cannot_be_read_reads_the_rest(tmp_path):
    """A link to nothing, a FIFO and a device named like record files: each is one line with its
    path, never opened (a FIFO would hang, /dev/urandom stream forever), and every good game is read."""
    folder = tmp_path / "season"
    folder.mkdir()
    shutil.copy(ROOT / "samples" / "01-clean-win.json", folder / "a-good.json")
    shutil.copy(ROOT / "samples" / "08-friday-evenings.jsonl", folder / "z-good.jsonl")
    (folder / "b-dangling.json").symlink_to(tmp_path / "gone.json")
    os.mkfifo(folder / "c-fifo.jsonl")
    (folder / "d-random.json").symlink_to("/dev/urandom")
    for args in (["validate", "--json", str(folder)], ["validate", "--json", "--jobs", "2", str(folder)],
                 ["load", str(folder), "--db", str(tmp_path / "a.duckdb"), "--json"]):
        done = subprocess.run([FOREMAN, *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        if args[0] == "validate":
            rows = [json.loads(line) for line in done.stdout.splitlines()]
            bad = {r["source"].rsplit("/", 1)[1]: r["violations"][0]["message"] for r in rows if r["status"] == "invalid"}
            assert set(bad) == {"b-dangling.json:0", "c-fifo.jsonl:0", "d-random.json:0"}
            assert "a link to nothing" in bad["b-dangling.json:0"] and "never opened" in bad["c-fifo.jsonl:0"]
            assert sum(r["status"] != "invalid" for r in rows) == 7
        else:
            assert json.loads(done.stdout)["added"] == 7


@pytest.fixture(scope="module")
def hostile_archive(tmp_path_factory):
    """An archive as someone might send it: foreman's tables, and views and a macro of its own that
    read a local file. Beside it, the clean archive it was made from."""
    import duckdb
    folder = tmp_path_factory.mktemp("hostile")
    secret = folder / "secret.txt"
    secret.write_text("root:x:0:0:the secret line\n")
    clean, hostile = folder / "clean.duckdb", folder / "hostile.duckdb"
    subprocess.run([FOREMAN, "load", str(ROOT / "samples"), "--db", str(clean)], capture_output=True, check=False)
    shutil.copy(clean, hostile)
    con = duckdb.connect(str(hostile))
    reads = f"(SELECT content FROM read_text('{secret}'))"
    con.execute(f"CREATE OR REPLACE VIEW player_summary AS SELECT {reads} AS player, 1 AS games, 1 AS wins, "
                "1.0 AS win_rate, 0 AS unfinished, 1 AS deals")
    con.execute(f"CREATE OR REPLACE VIEW deal_players AS SELECT d.game_id, d.deal, {reads} AS player, 0 AS seat, "
                "'D' AS role, 8 AS quota, 0 AS tricks, 0 AS outcome, false AS made_quota, ['AS'] AS hand "
                "FROM deal_facts d")
    con.execute(f"CREATE OR REPLACE MACRO card_token(code) AS {reads}")
    con.close()
    return clean, hostile


@pytest.mark.slow
def test_a_hostile_archive_reads_nothing_and_its_views_change_nothing(hostile_archive, tmp_path):
    clean, hostile = hostile_archive
    for args in (["stats"], ["stats", "--json"], ["fairness", "--json", "--db"], ["query", "SELECT * FROM player_summary"],
                 ["query", "SELECT * FROM plays LIMIT 5"]):
        db_args = ["--db"] if args[-1] != "--db" else []
        runs = [subprocess.run([FOREMAN, *args, *db_args, str(db)], capture_output=True, text=True, timeout=120)
                for db in (clean, hostile)]
        assert "secret line" not in runs[1].stdout + runs[1].stderr, args
        assert runs[1].stdout == runs[0].stdout and runs[1].returncode == runs[0].returncode, args
    out = tmp_path / "export"
    done = subprocess.run([FOREMAN, "export", "--parquet", str(out), "--db", str(hostile)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not any(b"secret line" in p.read_bytes() for p in out.rglob("*.parquet"))


def test_an_archive_whose_tables_are_views_is_refused_in_one_line(hostile_archive, tmp_path):
    import duckdb
    clean, _ = hostile_archive
    swapped = tmp_path / "swapped.duckdb"
    shutil.copy(clean, swapped)
    con = duckdb.connect(str(swapped))
    con.execute("DROP TABLE findings")
    con.execute("CREATE VIEW findings AS SELECT * FROM read_text('/etc/hostname')")
    con.close()
    done = subprocess.run([FOREMAN, "stats", "--db", str(swapped)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "not a foreman archive: 'findings' is not one of its tables" in done.stderr


def test_a_sqlite_file_as_the_archive_is_one_line_and_loads_no_extension(tmp_path):
    import sqlite3
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t (x)")
    for args in (["stats"], ["query", "SELECT 1"], ["export", "--parquet", str(tmp_path / "x")]):
        done = subprocess.run([FOREMAN, *args, "--db", str(path)], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"})
        assert done.returncode == 2 and done.stderr.startswith("foreman: ") and "Traceback" not in done.stderr
        assert "a SQLite database, not a foreman archive" in done.stderr and "xtension" not in done.stderr


@pytest.mark.skipif(not Path("/usr/bin/time").exists(), reason="no /usr/bin/time to measure the peak with")
def test_a_query_beyond_the_memory_limit_fails_in_one_line_below_its_bound(hostile_archive, tmp_path):
    """DuckDB's memory_limit (1 GB) does not bound one expression's strings: the query process is
    capped, so a statement built to exceed it fails with one line, its peak under 1.5 GB."""
    clean, _ = hostile_archive
    log = tmp_path / "time.txt"
    done = subprocess.run(["/usr/bin/time", "-v", "-o", str(log), FOREMAN, "query",
                           "SELECT length(repeat('x', 2000000000))", "--db", str(clean)],
                          capture_output=True, text=True, timeout=300)
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log.read_text())[1])
    assert done.returncode == 2 and done.stderr.count("\n") == 2 and "memory" in done.stderr.lower(), done.stderr
    assert peak_kb < 1.5 * (1 << 20), peak_kb


def test_the_table_of_an_endless_result_ends(hostile_archive):
    """A cartesian product shows its first rows and says there are more than a million others,
    and a query still computing at --timeout stops there, in table mode too."""
    clean, _ = hostile_archive
    done = subprocess.run([FOREMAN, "query", "SELECT a.card FROM plays a, plays b, plays c", "--limit", "3",
                           "--db", str(clean)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "more than 1,000,000 more rows not shown" in done.stderr
    done = subprocess.run([FOREMAN, "query", "SELECT sum(i) FROM range(1000000000000) t(i)", "--timeout", "0.5",
                           "--db", str(clean)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.count("\n") == 2, done.stderr


@pytest.mark.slow
def test_a_record_far_beyond_the_rules_costs_itself_only(tmp_path):
    """A million discards, or a hand of 64 cards, is RECORD_SCHEMA at its field (one finding, a short
    output), and a load stores every good game around it, whatever the batch."""
    sys.path.insert(0, str(ROOT / "tests"))
    from builders import game
    wild = game(id="wild")
    wild["deals"][0]["discards"] = ["2S"] * 1_000_000
    near = game(id="near")  # the near miss: a hand of 48 (three copies) is read and its breaches found
    near["deals"][0]["hands"]["alice"] = near["deals"][0]["hands"]["alice"] * 3
    path = tmp_path / "wild.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in
                            [game(id="g1"), wild, game(id="g2"), near, game(id="g3")]))
    done = subprocess.run([FOREMAN, "validate", "--json", str(path)], capture_output=True, text=True, timeout=120)
    rows = {json.loads(line)["id"]: json.loads(line) for line in done.stdout.splitlines()}
    assert rows["wild"]["status"] == "invalid" and len(rows["wild"]["violations"]) == 1
    assert rows["wild"]["violations"][0]["path"] == "$.deals[0].discards" and len(done.stdout) < 20_000
    assert rows["near"]["status"] != "invalid" and "DEAL_SIZE" in {v["code"] for v in rows["near"]["violations"]}
    for batch in ("1", "8192"):
        db = tmp_path / f"b{batch}.duckdb"
        done = subprocess.run([FOREMAN, "load", str(path), "--db", str(db), "--batch", batch, "--json"],
                              capture_output=True, text=True, timeout=120)
        assert json.loads(done.stdout)["added"] == 4 and done.returncode == 1, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "bit-flipped", "zeroed"])
def test_a_broken_archive_is_one_line_in_every_command(hostile_archive, tmp_path, damage):
    """No traceback from stats, fairness --db, query, export or load on a damaged archive: one line."""
    clean, _ = hostile_archive
    broken = tmp_path / "broken.duckdb"
    data = bytearray(clean.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 3]
    elif damage == "bit-flipped":
        for i in range(4096 + 17, len(data), 997):
            data[i] ^= 0x5A
    else:
        data[4096:len(data)] = bytes(len(data) - 4096)
    broken.write_bytes(bytes(data))
    for args in (["stats"], ["fairness", "--db"], ["query", "SELECT count(*) FROM games"],
                 ["export", "--parquet", str(tmp_path / "x")], ["load", str(ROOT / "samples" / "01-clean-win.json")]):
        copy = tmp_path / f"copy-{args[0]}.duckdb"
        copy.write_bytes(bytes(data))
        db_args = ["--db"] if args[-1] != "--db" else []
        done = subprocess.run([FOREMAN, *args, *db_args, str(copy)], capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 1, 2) and "Traceback" not in done.stderr, (args, done.stderr[-800:])
        if done.returncode == 2:
            assert done.stderr.startswith("foreman: ") and done.stderr.count("\n") <= 2, (args, done.stderr)


_LOAD_CAPPED = """import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, 1_000_000))
sys.argv = ["foreman", "load", sys.argv[1], "--db", sys.argv[2]]
from foreman_cli.__main__ import run
run()
"""


def test_a_load_whose_checkpoint_fails_exits_2_and_keeps_its_games(tmp_path):
    """Under a 1 MB file size limit the samples' transactions fit in the write-ahead log but the
    checkpoint cannot write the archive: that is told (exit 2, one line), not passed over; the next
    load of the same records finds every game there."""
    db = tmp_path / "a.duckdb"
    done = subprocess.run([sys.executable, "-c", _LOAD_CAPPED, str(ROOT / "samples"), str(db)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "intact" in done.stderr and done.stderr.count("\n") == 2, done.stderr
    again = subprocess.run([FOREMAN, "load", str(ROOT / "samples"), "--db", str(db), "--json"], capture_output=True,
                           text=True, timeout=120)
    report = json.loads(again.stdout)
    assert report["added"] + report["unchanged"] == 17


def test_a_killed_loads_spill_folder_is_cleaned_by_the_next_load(tmp_path):
    db = tmp_path / "a.duckdb"
    stale = tmp_path / "a.duckdb.tmp"
    stale.mkdir()
    (stale / "duckdb_temp_storage_S32K-0.tmp").write_bytes(b"\0" * 4096)  # as a load killed with -9 leaves it
    done = subprocess.run([FOREMAN, "load", str(ROOT / "samples" / "01-clean-win.json"), "--db", str(db)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not stale.exists()


def test_a_record_wrong_everywhere_keeps_its_first_thousand_findings_and_counts_the_rest(tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    from builders import base_deal, game
    wrong = game([base_deal(tricks=2) for _ in range(1500)], id="wrong")  # each deal stops short: a finding a deal
    near = game([base_deal(tricks=2) for _ in range(400)], id="near")  # the near miss: every finding kept
    path = tmp_path / "wrong.jsonl"
    path.write_text(json.dumps(wrong) + "\n" + json.dumps(near) + "\n")
    done = subprocess.run([FOREMAN, "validate", "--json", str(path)], capture_output=True, text=True, timeout=120)
    rows = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert len(rows["wrong"]["violations"]) == 1001 and rows["wrong"]["violations_not_shown"] == 1998
    assert "violations_not_shown" not in rows["near"] and 700 < len(rows["near"]["violations"]) < 1000
    human = subprocess.run([FOREMAN, "validate", str(path)], capture_output=True, text=True, timeout=120).stdout
    assert "and 1,998 more findings (a game keeps its first 1,001)" in human


def test_the_table_of_all_rows_holds_a_bounded_number(hostile_archive):
    """--limit 0 holds its table whole to align it: it shows at most 100,000 rows and says how many
    more, and --csv streams them all."""
    clean, _ = hostile_archive
    con = duckdb.connect(str(clean), read_only=True)
    assert con.execute("SELECT count(*) FROM plays").fetchone()[0] ** 2 > 150_000  # the samples' plays, squared
    con.close()
    rows = 150_000  # half as many again as a table shows
    sql = f"SELECT a.card FROM plays a, plays b LIMIT {rows}"
    done = subprocess.run([FOREMAN, "query", sql, "--limit", "0", "--db", str(clean)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.count("\n") == 100_001
    assert f"{rows - 100_000:,} more rows not shown" in done.stderr
    streamed = subprocess.run([FOREMAN, "query", sql, "--csv", "--db", str(clean)], capture_output=True, text=True,
                              timeout=300)
    assert streamed.stdout.count("\n") == rows + 1


def test_a_query_run_in_process_leaves_the_process_limits_as_they_were(hostile_archive):
    """The cap holds while the query runs and is put back after it: a program that runs a query
    (and every child it starts later) keeps its own limits."""
    from typer.testing import CliRunner
    from foreman_cli.cli import app
    clean, _ = hostile_archive
    before = resource.getrlimit(resource.RLIMIT_DATA)
    for sql in ("SELECT count(*) FROM games", "SELECT length(repeat('x', 2000000000))"):
        CliRunner().invoke(app, ["query", sql, "--db", str(clean)])
        assert resource.getrlimit(resource.RLIMIT_DATA) == before


def test_a_file_written_whole_has_the_permissions_an_ordinary_write_gives(tmp_path):
    """mkstemp's temporary file is 0600; the file written in its place is not (a shared folder's
    other users could not read a certificate or a conversion)."""
    import os
    from foreman_cli.files import write_text_atomically
    ordinary = tmp_path / "ordinary.txt"
    ordinary.write_text("x")
    written = tmp_path / "written.txt"
    write_text_atomically(written, "x")
    assert os.stat(written).st_mode & 0o777 == os.stat(ordinary).st_mode & 0o777
