"""The DuckDB archive: idempotent loads, conflicts, read-only queries, stats, Parquet export, locks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from builders import game
from foreman_cli import audit, chunks, archive as store
from foreman_cli.archive import loading as archive_load
from foreman_cli.archive import sql as archive_query
from foreman_cli.archive import staging
from foreman_cli.cli import app
from foreman_cli.errors import DatabaseError
from foreman_cli.generate import generate

SAMPLES = str(Path(__file__).resolve().parent.parent / "samples")
runner = CliRunner()


def write(tmp_path, name, recs):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return str(p)


def load(paths, db, **kw):
    return store.load(audit.audit_paths(paths), db, **kw)


def test_load_twice_changes_nothing(tmp_path):
    db = str(tmp_path / "a.duckdb")
    rep = load([SAMPLES], db)
    assert rep.added == 17 and rep.invalid == 0 and not rep.conflicts
    before = store.counts(db)
    assert before["games"] == 17 and before["plays"] == rep.plays == rep.rows["plays"]
    rep = load([SAMPLES], db)
    assert (rep.added, rep.unchanged, rep.plays) == (0, 17, 0)
    assert store.counts(db) == before


def test_rows_agree_with_the_replay(tmp_path):
    db = str(tmp_path / "a.duckdb")
    results = list(audit.audit_paths([SAMPLES]))
    load([SAMPLES], db)
    plays = sum(len(t.cards[:3]) for r in results for dr in r.deals
                for t in r.data.deals[dr.number - 1].tricks[: len(dr.winners)])
    res = store.query(db, "SELECT count(*), count(*) FILTER (WHERE won) FROM plays")
    assert res.rows[0] == (plays, sum(len(dr.winners) for r in results for dr in r.deals))
    # every deal's tallies add up to the tricks won in the plays table and those credited by a claim
    bad = store.query(db, """
        SELECT dp.game_id, dp.deal, dp.player FROM deal_players dp
        LEFT JOIN (SELECT game_id, deal, player, count(*) FILTER (WHERE won) AS w FROM plays
                   GROUP BY ALL) p USING (game_id, deal, player)
        LEFT JOIN claims c USING (game_id, deal, player)
        WHERE coalesce(p.w, 0) + coalesce(c.tricks, 0) <> dp.tricks""")
    assert bad.rows == []
    claims = store.query(db, "SELECT game_id, deal, player, accepted, first_trick, tricks, holds FROM claims "
                             "ORDER BY game_id")
    assert claims.rows == [("fri-09-claim", 1, "bob", False, 11, 2, False),
                           ("fri-1211-g3", 1, "carol", False, 11, 6, False)]  # judged from the cards left
    revoke = store.query(db, "SELECT game_id, deal, trick, player, card FROM findings WHERE code = 'REVOKE' "
                             "ORDER BY game_id")
    assert revoke.rows == [("fri-03-revoke", 1, 9, "alice", "QD"), ("fri-1211-g2", 1, 1, "bob", "KH")]
    money = store.query(db, "SELECT player, net_text FROM payouts WHERE game_id = 'fri-01-clean' ORDER BY player")
    assert money.rows == [("alice", "-2.00"), ("bob", "4.00"), ("carol", "-2.00")]


def test_conflict_is_refused_then_replaced(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([write(tmp_path, "a.jsonl", [game(id="g1")])], db)
    changed = write(tmp_path, "b.jsonl", [game(id="g1", notes="edited after the fact")])
    rep = load([changed], db)
    assert rep.added == 0 and len(rep.conflicts) == 1 and rep.conflicts[0].startswith("g1 ")
    assert store.query(db, "SELECT notes FROM (SELECT raw->>'notes' AS notes FROM games)").rows == [(None,)]
    res = runner.invoke(app, ["load", changed, "--db", db])
    assert res.exit_code == 1 and "conflict: g1" in res.output and "--replace" in res.output
    rep = load([changed], db, replace=True)
    assert rep.replaced == 1
    assert store.query(db, "SELECT raw->>'notes' FROM games").rows == [("edited after the fact",)]
    assert store.counts(db)["game_players"] == 3


def test_two_different_records_of_a_game_in_one_input_are_not_told_to_use_replace(tmp_path):
    db = str(tmp_path / "a.duckdb")
    first = write(tmp_path, "a.jsonl", [game(id="g1")])
    other = write(tmp_path, "b.jsonl", [game(id="g1", notes="written up again")])
    for replace in ([], ["--replace"]):  # --replace cannot load the second: a repeat in the input is never loaded
        res = runner.invoke(app, ["load", first, other, "--db", db, *replace])
        assert res.exit_code == 1 and "earlier in the input" in res.output, res.output
        assert "use --replace" not in res.output and "the first of two different records" in res.output
    assert store.query(db, "SELECT raw->>'notes' FROM games").rows == [(None,)]
    res = runner.invoke(app, ["load", other, "--db", db])  # the near miss: a conflict with the archive
    assert res.exit_code == 1 and "use --replace" in res.output and "the first of two" not in res.output


def test_invalid_records_are_reported_not_loaded(tmp_path):
    db = str(tmp_path / "a.duckdb")
    p = tmp_path / "x.jsonl"
    p.write_text('{"format": "foreman/1"}\n' + json.dumps(game()) + "\n")
    res = runner.invoke(app, ["load", str(p), "--db", db])
    assert res.exit_code == 1 and "1 invalid record not loaded" in res.output and f"{p}:1: $.id: required field is missing" in res.output
    assert store.counts(db)["games"] == 1


def test_generated_corpus_twice_same_counts(tmp_path):
    recs = [r for r, _ in generate(300, 11, max_deals=6)]
    path = write(tmp_path, "c.jsonl", recs)
    db = str(tmp_path / "c.duckdb")
    load([path], db, batch_games=64)
    first = store.counts(db)
    rep = load([path], db, batch_games=64)
    assert store.counts(db) == first and rep.unchanged == 300 and first["games"] == 300


@pytest.mark.reference_only
def test_a_load_writes_row_groups_of_the_size_it_asks_for(tmp_path, monkeypatch):
    # DuckDB keeps no row group size in the file: a load asks for its own at each ATTACH.
    recs = [r for r, _ in generate(1600, 12)]
    path = write(tmp_path, "c.jsonl", recs)
    sizes = {}
    for rows in (2048, None):
        monkeypatch.setattr(archive_load, "ROW_GROUP_ROWS", rows)
        db = str(tmp_path / f"rg-{rows}.duckdb")
        load([path], db)
        con = duckdb.connect(db, read_only=True)
        sizes[rows] = (con.execute("SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('deal_facts')").fetchone()[0],
                       con.execute("SELECT count(*) FROM deal_facts").fetchone()[0])
        con.close()
    deals = sizes[None][1]
    assert deals > 2 * 2048 and sizes[None][0] == 1
    assert sizes[2048][0] == -(-deals // 2048)


class _Counting:
    """A connection that counts the transactions committed through it."""

    def __init__(self, con):
        self.con, self.commits = con, 0

    def execute(self, sql, *args):
        self.commits += sql.strip().upper() == "COMMIT"
        return self.con.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.con, name)


def _commits(monkeypatch, **load_kw) -> tuple[int, "_Counting"]:
    made = []
    real = store.connect

    def counting(*a, **kw):
        made.append(_Counting(real(*a, **kw)))
        return made[-1]

    monkeypatch.setattr(archive_load, "connect", counting)
    return store.load_paths(**load_kw), made[0]


@pytest.mark.reference_only
def test_a_transaction_holds_batches_until_it_holds_batch_games(tmp_path, monkeypatch):
    import gzip
    recs = [r for r, _ in generate(1000, 13, max_deals=4)]
    path = str(tmp_path / "c.jsonl.gz")  # read here in batches of records, not in chunks of lines by the workers
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs)
    monkeypatch.setattr(archive_load, "BATCH_GAMES", 100)  # a worker's task
    tasks: list[int] = []
    rep, con = _commits(monkeypatch, paths=[path], path=str(tmp_path / "a.duckdb"), batch_games=300,
                        progress=tasks.append)
    # batches of 100 games; the tables' creation, then transactions of 300, 300, 300 and the last 100
    assert tasks == [100] * 10 and con.commits == 1 + 4 and rep.added == 1000
    monkeypatch.setattr(archive_load, "TRANSACTION_BYTES", 1)  # a transaction also ends at its size
    rep, con = _commits(monkeypatch, paths=[path], path=str(tmp_path / "b.duckdb"), batch_games=300)
    assert con.commits == 1 + 10 and rep.added == 1000
    assert store.counts(str(tmp_path / "a.duckdb")) == store.counts(str(tmp_path / "b.duckdb"))


def test_the_rows_kept_of_a_batch_are_those_of_the_games_kept():
    """A run of places (a batch split between transactions) is a slice, any other set a filter:
    either way the rows of exactly those games, in order, in every table, empty ones too."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from foreman_cli.audit import check_record
    from foreman_cli.reader import RawRecord
    recs = [r for r, _ in generate(30, 17, max_deals=3, stacked=0.5)]
    results = [check_record(RawRecord("t.jsonl", n + 1, json.dumps(r)), keep=True) for n, r in enumerate(recs)]
    tables = staging.stage_tables(results)
    assert {name for name, t in tables.items() if t.num_rows == 0} and len(tables["_findings"]) > 0
    for keep in ([0], [29], list(range(0, 12)), list(range(12, 30)), list(range(5, 6)), [1, 2, 7, 20], list(range(30))):
        for name, t in tables.items():
            want = t.filter(pc.is_in(t["_n"], value_set=pa.array(keep, type=pa.int32())))
            assert staging.kept_rows(t, keep).equals(want), (name, keep)


def _contents(db: str) -> dict[str, list]:
    con = duckdb.connect(db, read_only=True)
    try:
        return {t: sorted(map(repr, con.execute(f"SELECT * EXCLUDE (loaded_at) FROM {t}" if t == "games" else
                                                 f"SELECT * FROM {t}").fetchall())) for t in store.TABLES}
    finally:
        con.close()


def test_batches_split_between_transactions_load_the_same_rows(tmp_path, monkeypatch):
    recs = [r for r, _ in generate(120, 29, max_deals=4, stacked=0.3)]
    path = write(tmp_path, "c.jsonl", recs)
    store.load_paths([path], str(tmp_path / "a.duckdb"))
    monkeypatch.setattr(archive_load, "BATCH_GAMES", 50)
    store.load_paths([path], str(tmp_path / "b.duckdb"), batch_games=7)  # most batches split, some twice
    assert _contents(str(tmp_path / "a.duckdb")) == _contents(str(tmp_path / "b.duckdb"))


def test_a_load_writes_a_few_batches_at_once_and_stores_what_it_stores_one_at_a_time(tmp_path, monkeypatch):
    """Batches are held until WRITE_BYTES of them, then written in one statement a table; parts
    from another file, or whose text came with the results (gzip), are written apart. The rows are
    those written a batch at a time, across split transactions too."""
    import gzip
    recs = [r for r, _ in generate(90, 31, max_deals=4, stacked=0.3)]
    first, second = write(tmp_path, "a.jsonl", recs[:40]), write(tmp_path, "b.jsonl", recs[40:70])
    packed = tmp_path / "c.jsonl.gz"
    packed.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in recs[70:]).encode()))
    paths = [first, second, str(packed)]
    monkeypatch.setattr(chunks, "WORKER_CHUNK", 4000)  # a few records a chunk
    monkeypatch.setattr(archive_load, "BATCH_GAMES", 6)
    writes: list[list[int]] = []
    real = archive_load._write
    monkeypatch.setattr(archive_load, "_write", lambda con, parts, *a: writes.append([len(k) for _, k in parts])
                        or real(con, parts, *a))
    store.load_paths(paths, str(tmp_path / "held.duckdb"), batch_games=25)
    held = writes[:]
    writes.clear()
    monkeypatch.setattr(archive_load, "WRITE_BYTES", 0)
    store.load_paths(paths, str(tmp_path / "alone.duckdb"), batch_games=25)
    assert all(len(w) == 1 for w in writes) and len(writes) > 12
    assert sum(map(sum, held)) == sum(map(sum, writes)) == len(recs)
    assert len(held) < len(writes) and max(map(len, held)) > 2
    assert _contents(str(tmp_path / "held.duckdb")) == _contents(str(tmp_path / "alone.duckdb"))


def test_a_load_of_results_that_repeat_a_game_writes_it_once(tmp_path, monkeypatch):
    """Results that do not mark their repeats (no audit across games): the look-up sees the games
    held for writing too."""
    from foreman_cli.audit import check_record
    from foreman_cli.reader import RawRecord
    recs = [r for r, _ in generate(6, 33, max_deals=2)]
    results = [check_record(RawRecord("t.jsonl", n + 1, json.dumps(r)), keep=True) for n, r in enumerate(recs + recs[:2])]
    monkeypatch.setattr(archive_load, "BATCH_GAMES", 2)  # batches of 2 in a transaction of them all
    rep = store.load(results, str(tmp_path / "a.duckdb"), batch_games=100)
    assert (rep.added, rep.unchanged) == (6, 2)
    assert store.counts(str(tmp_path / "a.duckdb"))["games"] == 6


def test_an_archive_written_in_row_groups_spills_beside_itself(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "a.duckdb")
    con = store.connect(db, row_group_rows=archive_load.ROW_GROUP_ROWS)
    try:
        assert con.execute("SELECT current_setting('temp_directory')").fetchone()[0] == db + ".tmp"
        assert con.execute("SELECT current_database()").fetchone()[0] == "archive"
    finally:
        con.close()


def test_query_is_read_only(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    with pytest.raises(DatabaseError, match='"DROP TABLE games" is not a read'):
        store.query(db, "DROP TABLE games")
    leak = tmp_path / "leak.csv"
    with pytest.raises(DatabaseError, match="only reads the archive"):
        store.query(db, f"COPY (SELECT * FROM games) TO '{leak}'")
    assert not leak.exists()
    with pytest.raises(DatabaseError, match="only reads the archive"):
        store.query(db, f"ATTACH '{tmp_path / 'other.duckdb'}' AS o")
    res = runner.invoke(app, ["query", "DELETE FROM findings", "--db", db])
    assert res.exit_code == 2 and "only reads the archive" in res.output and "Traceback" not in res.output
    for write in ("DELETE FROM plays", "UPDATE plays SET card = 'AS'"):  # plays is a view
        res = runner.invoke(app, ["query", write, "--db", db])
        assert res.exit_code == 2 and "only reads the archive" in res.output, res.output
    assert store.counts(db)["games"] == 17
    res = runner.invoke(app, ["query", "SELECT id, winner FROM games ORDER BY id LIMIT 2", "--db", db, "--json"])
    assert [json.loads(x) for x in res.output.splitlines()] == [
        {"id": "fri-01-clean", "winner": "bob"}, {"id": "fri-02-long", "winner": "carol"}]
    res = runner.invoke(app, ["query", "SELECT id FROM games ORDER BY id LIMIT 1", "--db", db, "--csv"])
    assert res.output.splitlines() == ["id", "fri-01-clean"]
    res = runner.invoke(app, ["query", "SELEC nonsense", "--db", db])
    assert res.exit_code == 2 and "query failed" in res.output


def test_a_statement_refused_is_quoted_as_written(tmp_path):
    """The refusal quotes the statement, not DuckDB's kind of it (INSTALL parses as LOAD), without
    the comments before it and cut when long; a read next to it runs."""
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    long = "CREATE TEMP TABLE t AS SELECT * FROM games WHERE status = 'won' AND winner = 'bob'"
    for statement, shown in (("install httpfs", "install httpfs"), ("/* first */ DROP VIEW plays", "DROP VIEW plays"),
                             ("-- now\nCALL  force_checkpoint()", "CALL force_checkpoint()"), (long, long[:57] + "...")):
        res = runner.invoke(app, ["query", statement, "--db", db])
        assert res.exit_code == 2 and f'"{shown}" is not a read' in res.output, (statement, res.output)
    res = runner.invoke(app, ["query", "/* first */ SELECT 'install httpfs' AS s", "--db", db, "--csv"])
    assert res.exit_code == 0 and res.output.splitlines() == ["s", "install httpfs"], res.output


def test_a_failed_query_keeps_duckdbs_guess_at_the_name_and_says_how_to_list_the_tables(tmp_path):
    """DuckDB's 'Did you mean' and candidate columns come through on the one line, and the hint is a
    command that lists the tables (the docs are not beside an installed foreman); a statement that
    is not SQL gets a hint about where it stopped instead."""
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    res = runner.invoke(app, ["query", "SELECT * FROM game", "--db", db])
    assert res.exit_code == 2 and 'Did you mean "games"?' in res.output, res.output
    assert 'foreman query "SHOW TABLES"' in res.output and "docs/" not in res.output
    res = runner.invoke(app, ["query", "SELECT winer FROM games", "--db", db])
    assert res.exit_code == 2 and 'Candidate bindings: "winner"' in res.output, res.output
    assert len(res.output.strip().splitlines()) == 2  # the message and its hint
    res = runner.invoke(app, ["query", "SELEC 1", "--db", db])
    assert res.exit_code == 2 and 'near "SELEC"' in res.output and "SHOW TABLES" not in res.output, res.output
    res = runner.invoke(app, ["query", "SHOW TABLES", "--db", db, "--csv"])
    assert res.exit_code == 0 and "games" in res.output.splitlines()


@pytest.mark.reference_only
def test_query_refuses_what_would_change_only_its_own_session(tmp_path):
    """A statement that is not a read is refused by its kind, not run against the session's own
    views and reported as a success that changed nothing; every kind of read still runs."""
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    for statement in ("DROP VIEW plays", "CREATE TEMP TABLE t (a INT)", "BEGIN", "LOAD json", "VACUUM",
                      "PREPARE p AS SELECT 1", "/* first */ DROP VIEW plays", "CHECKPOINT", "force  checkpoint;",
                      "-- now\nCALL force_checkpoint()"):
        res = runner.invoke(app, ["query", statement, "--db", db])
        assert res.exit_code == 2, (statement, res.output)
        assert "only reads the archive" in res.output and "is not a read" in res.output, res.output
        assert "Success" not in res.output
    for read in ("SHOW TABLES", "DESCRIBE games", "SUMMARIZE payouts", "EXPLAIN SELECT 1",
                 "PRAGMA table_info('games')", "PIVOT games ON status USING count(*)",
                 "FROM plays LIMIT 1", "WITH g AS (SELECT 1 AS a) SELECT a FROM g", "CALL pragma_version()",
                 "SELECT 'checkpoint' AS word"):
        res = runner.invoke(app, ["query", read, "--db", db, "--json"])
        assert res.exit_code == 0 and res.output.strip(), (read, res.output)
    res = runner.invoke(app, ["query", "SELECT count(*) AS n FROM plays", "--db", db, "--json"])
    assert json.loads(res.output) == {"n": 1032}


def test_an_archive_is_never_made_under_a_name_foreman_reads_records_from(tmp_path):
    for name in ("friday.jsonl", "friday.json", "friday.fmn", "friday.jsonl.gz"):
        res = runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", str(tmp_path / name)])
        assert res.exit_code == 2 and "not one for an archive" in res.output and not (tmp_path / name).exists()
    res = runner.invoke(app, ["load", f"{SAMPLES}/01-clean-win.json", "--db", str(tmp_path / "friday.db")])
    assert res.exit_code == 0


def test_show_tables_names_each_table_and_view_once(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    names = [json.loads(x)["name"] for x in runner.invoke(app, ["query", "SHOW TABLES", "--db", db, "--json"]).output.split()]
    assert len(names) == len(set(names)) and {"games", "plays", "player_summary"} <= set(names), names


def test_missing_database_is_a_clear_error(tmp_path):
    res = runner.invoke(app, ["stats", "--db", str(tmp_path / "none.duckdb")])
    assert res.exit_code == 2 and "no such database" in res.output


def test_stats(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    st = store.stats(db)
    players = {row[0]: row for row in st.players.rows}
    assert set(players) == {"alice", "bob", "carol"}
    assert sum(row[2] for row in st.players.rows) == 17  # one winner a game
    roles = {(r[0], r[1]) for r in st.roles.rows}
    assert len(roles) == 9
    money = {(r[0], r[1]): r[3] for r in st.money.rows}
    assert sum(money.values()) == 0
    res = runner.invoke(app, ["stats", "--db", db, "--player", "alice", "--json"])
    doc = json.loads(res.output)
    assert {r["player"] for r in doc["players"]} == {"alice"}
    assert {r["code"] for r in doc["findings"]} == {"REVOKE"}
    res = runner.invoke(app, ["stats", "--db", db])
    assert res.exit_code == 0 and "Head to head (wins: the player won; losses: the opponent won;" in res.output


def test_parquet_export_reads_back_the_same_rows(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    out = tmp_path / "pq"
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", db])
    assert res.exit_code == 0 and res.stdout.startswith(f"{out}: {len(store.TABLES)} tables written as Parquet (rows: ")
    assert "plays 1,032" in res.stdout  # said in words; --json gives the object
    said = json.loads(runner.invoke(app, ["export", "--parquet", str(out), "--db", db, "--json"]).stdout)
    assert said["dir"] == str(out) and said["rows"]["plays"] == 1032 and set(said["rows"]) == set(store.TABLES)
    con = duckdb.connect(db, read_only=True)
    for t in store.TABLES:
        files = list((out / t).glob("*.parquet"))
        assert files, t
        diff = con.execute(f"SELECT count(*) FROM (SELECT * FROM {t} EXCEPT ALL "
                           f"SELECT * FROM read_parquet('{out / t}/*.parquet'))").fetchone()[0]
        assert diff == 0, t
        n = con.execute(f"SELECT count(*) FROM read_parquet('{out / t}/*.parquet')").fetchone()[0]
        assert n == con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
    con.close()


def test_an_export_to_a_file_says_it_is_not_a_folder(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    res = runner.invoke(app, ["export", "--parquet", str(afile), "--db", db])
    assert res.exit_code == 2 and f"--parquet {afile}: a file, not a folder" in res.output, res.output
    assert afile.read_text() == "keep me"
    # Near miss: an empty folder that exists is written into.
    (tmp_path / "empty").mkdir()
    assert runner.invoke(app, ["export", "--parquet", str(tmp_path / "empty"), "--db", db]).exit_code == 0


def test_an_export_into_a_folder_holding_another_writers_parquet_writes_nothing(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    out = tmp_path / "pq"
    assert runner.invoke(app, ["export", "--parquet", str(out), "--db", db]).exit_code == 0
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*.parquet")}
    (out / "plays" / "part-00000.snappy.parquet").write_bytes((out / "plays" / "data.parquet").read_bytes())
    res = runner.invoke(app, ["export", "--parquet", str(out), "--db", db])
    assert res.exit_code == 2 and f"{out / 'plays'} holds part-00000.snappy.parquet, which foreman does not write" \
        in res.output, res.output
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.parquet") if p.name != "part-00000.snappy.parquet"} == before
    # Near miss: foreman's own export again (its data.parquet files only) is written over.
    (out / "plays" / "part-00000.snappy.parquet").unlink()
    assert runner.invoke(app, ["export", "--parquet", str(out), "--db", db]).exit_code == 0


def test_database_in_use_by_another_process(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb,time,sys; c=duckdb.connect({db!r}); "
                               "print('ready', flush=True); time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        res = runner.invoke(app, ["load", SAMPLES, "--db", db])
        assert res.exit_code == 2
        assert "is in use by another foreman" in res.output and "Traceback" not in res.output
        res = runner.invoke(app, ["stats", "--db", db])
        assert res.exit_code == 2 and "in use" in res.output
        # with workers, which have started when the archive opens: the same line, and they end
        import multiprocessing
        many = write(tmp_path, "many.jsonl", [r for r, _ in generate(300, 8, max_deals=4)])
        res = runner.invoke(app, ["load", many, "--db", db, "--jobs", "2"])
        assert res.exit_code == 2 and "is in use by another foreman" in res.output and "Traceback" not in res.output
        assert multiprocessing.active_children() == []
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.1)
    assert runner.invoke(app, ["stats", "--db", db]).exit_code == 0


def test_load_analyze_stores_costs_and_accuracy(tmp_path):
    db = str(tmp_path / "a.duckdb")
    claim, clean = str(Path(SAMPLES) / "09-contested-claim.json"), str(Path(SAMPLES) / "01-clean-win.json")
    rep = store.load_paths([claim, clean], db, analyze=5000)
    assert rep.added == 2
    # every card played is costed (both deals solve at once), none is left unsolved
    costs = store.query(db, "SELECT count(*), count(cost), sum(cost) FROM play_costs").rows[0]
    assert costs[0] == costs[1] == rep.plays and costs[2] >= 0
    acc = store.query(db, """SELECT player, cards, cost, exact FROM deal_accuracy
                             WHERE game_id = 'fri-09-claim' ORDER BY player""").rows
    assert acc == [("alice", 10, 0, True), ("bob", 10, 0, True), ("carol", 10, 1, True)]
    # each wholly analysed deal's split adds up to the tricks credited, a claim's term included
    split = store.query(db, """SELECT a.game_id, a.player, a.par - a.cost + a.gifts + coalesce(a.claim, 0), dp.tricks,
                                    a.luck, a.par - dp.quota, a.claim IS NOT NULL
                             FROM deal_accuracy a JOIN deal_players dp USING (game_id, deal, player)
                             WHERE a.par IS NOT NULL ORDER BY a.game_id, a.player""").rows
    assert len(split) == 6 and all(r[2] == r[3] and r[4] == r[5] for r in split)
    assert [r[6] for r in split] == [False] * 3 + [True] * 3  # 09's deal ended by a claim
    luck = store.query(db, "SELECT player, deals, skill FROM player_luck ORDER BY player").rows
    assert [r[:2] for r in luck] == [("alice", 2), ("bob", 2), ("carol", 2)] and luck[2][2] <= -1
    # luck against the field: par above the role's mean, so over everyone it sums to nothing
    field = store.query(db, "SELECT sum(deals * mean_luck_vs_role), count(*) FROM player_luck").rows[0]
    assert abs(field[0]) < 0.01 and field[1] == 3
    st = store.stats(db)
    assert st.accuracy.columns == ["player", "role", "deals", "cards", "cost", "accuracy"] and st.accuracy.rows
    # without --analyze the tables stay empty and stats has no accuracy
    db2 = str(tmp_path / "b.duckdb")
    store.load_paths([claim], db2)
    assert store.counts(db2)["play_costs"] == 0 and store.stats(db2).accuracy.rows == []


def test_load_analyze_over_workers_stores_what_one_process_stores(tmp_path):
    from foreman_cli.rules import HouseRules
    recs = [r for r, _ in generate(6, 4, rules=HouseRules(target=4), max_deals=2, stacked=0.0)]
    path = write(tmp_path, "g.jsonl", recs)
    tables = []
    for jobs in (1, 2):
        db = str(tmp_path / f"j{jobs}.duckdb")
        assert store.load_paths([path], db, analyze=100_000, jobs=jobs).added == 6
        tables.append([store.query(db, f"SELECT * FROM {t} ORDER BY ALL").rows for t in ("play_costs", "deal_accuracy")])
    assert tables[0] == tables[1] and tables[0][0] and tables[0][1]


@pytest.mark.parametrize("jobs", [1, 2])
def test_load_analyze_adds_the_analysis_a_stored_game_lacks_and_never_analyses_a_game_twice(tmp_path, monkeypatch, jobs):
    from foreman_cli import analysis
    from foreman_cli.rules import HouseRules
    recs = [r for r, _ in generate(6, 9, rules=HouseRules(target=4), max_deals=2, stacked=0.0)]
    first, rest = write(tmp_path, "first.jsonl", recs[:3]), write(tmp_path, "rest.jsonl", recs[3:])

    def analysis_tables(db):
        return [store.query(db, f"SELECT * FROM {t} ORDER BY ALL").rows for t in ("play_costs", "deal_accuracy")]

    fresh = str(tmp_path / "fresh.duckdb")
    assert store.load_paths([first, rest], fresh, analyze=100_000).analysed == 6
    db = str(tmp_path / "late.duckdb")
    assert store.load_paths([first], db).analysed is None  # stored without their analysis
    rep = store.load_paths([first, rest], db, analyze=100_000, jobs=jobs)
    assert (rep.added, rep.unchanged, rep.analysed) == (3, 3, 6)
    assert analysis_tables(db) == analysis_tables(fresh) and all(analysis_tables(db))

    def no_search(*args, **kwargs):
        raise AssertionError("a game analysed before was analysed again")
    monkeypatch.setattr(analysis, "analyze_game", no_search)
    res = runner.invoke(app, ["load", first, rest, "--db", db, "--analyze"])
    assert res.exit_code == 0, res.output
    assert "6 unchanged" in res.output and "0 games analysed" in res.output
    assert analysis_tables(db) == analysis_tables(fresh)


def test_an_archive_analysed_before_the_split_gains_its_columns(tmp_path):
    db = str(tmp_path / "a.duckdb")
    clean, claim = str(Path(SAMPLES) / "01-clean-win.json"), str(Path(SAMPLES) / "09-contested-claim.json")
    store.load_paths([clean], db, analyze=5000)
    with duckdb.connect(db) as con:  # the table as an earlier foreman made it
        for col in ("par", "gifts", "luck", "claim"):
            con.execute(f"ALTER TABLE deal_accuracy DROP COLUMN {col}")
    store.load_paths([claim], db, analyze=5000)
    rows = store.query(db, "SELECT game_id, count(par), count(claim) FROM deal_accuracy GROUP BY game_id ORDER BY 1").rows
    assert dict((r[0], r[1:]) for r in rows) == {"fri-01-clean": (0, 0), "fri-09-claim": (3, 3)}



def test_an_archive_whose_games_were_hashed_otherwise_is_hashed_again_and_its_analyses_kept(tmp_path):
    import hashlib
    db = str(tmp_path / "a.duckdb")
    records = [str(Path(SAMPLES) / name) for name in ("01-clean-win.json", "09-contested-claim.json")]
    store.load_paths(records, db, analyze=5000)
    with duckdb.connect(db) as con:  # the games as an earlier foreman hashed them (BLAKE2b)
        for game_id, raw in con.execute("SELECT id, raw FROM games").fetchall():
            old = hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()
            con.execute("UPDATE games SET content_hash = ? WHERE id = ?", [old, game_id])
        con.execute("COMMENT ON COLUMN games.content_hash IS NULL")
    rep = store.load_paths(records, db, analyze=5000)
    assert (rep.added, rep.unchanged, rep.conflicts, rep.analysed) == (0, 2, [], 0)
    stored = store.query(db, "SELECT content_hash, raw FROM games").rows
    assert [h for h, _ in stored] == [audit.fingerprint(raw).hex() for _, raw in stored]

# --- Hardening II: the query sandbox ---

@pytest.fixture
def archive(tmp_path):
    db = str(tmp_path / "a.duckdb")
    load([SAMPLES], db)
    return db


def test_a_list_in_a_query_is_written_as_sql_writes_it_in_a_table_and_as_json_in_csv(archive):
    sql = "SELECT players, [1, NULL, 3] AS numbers, [] AS nothing FROM games WHERE id = 'fri-01-clean'"
    table = CliRunner().invoke(app, ["query", sql, "--db", archive]).stdout
    assert table.splitlines()[1].split("  ") == ["[alice, bob, carol]", "[1, NULL, 3]", "[]"], table
    row = json.loads(CliRunner().invoke(app, ["query", sql, "--db", archive, "--json"]).stdout)
    assert row == {"players": ["alice", "bob", "carol"], "numbers": [1, None, 3], "nothing": []}  # JSON keeps lists
    import csv
    cells = list(csv.reader(CliRunner().invoke(app, ["query", sql, "--db", archive, "--csv"]).stdout.splitlines()))[1]
    assert [json.loads(cell) for cell in cells] == list(row.values())  # CSV: each list as its JSON text


def test_bytes_and_an_interval_in_a_query_are_written_alike_in_a_table_csv_and_json(archive):
    sql = "SELECT '\\x00\\xff'::BLOB AS raw, INTERVAL 3 DAY AS wait, 'x' AS plain"
    row = json.loads(CliRunner().invoke(app, ["query", sql, "--db", archive, "--json"]).stdout)
    assert row == {"raw": "AP8=", "wait": "P3D", "plain": "x"}  # base64 and ISO 8601, as JSON has them
    import csv
    cells = list(csv.reader(CliRunner().invoke(app, ["query", sql, "--db", archive, "--csv"]).stdout.splitlines()))
    assert cells == [["raw", "wait", "plain"], ["AP8=", "P3D", "x"]]  # not Python's b'\x00\xff' and 3 days, 0:00:00
    table = CliRunner().invoke(app, ["query", sql, "--db", archive]).stdout
    assert table.split() == ["raw", "wait", "plain", "AP8=", "P3D", "x"], table


def test_a_boolean_in_a_query_is_written_true_or_false_as_sql_and_json_write_it(archive, tmp_path):
    sql = "SELECT true AS yes, false AS no, [true, false] AS both FROM games WHERE id = 'fri-01-clean'"
    table = CliRunner().invoke(app, ["query", sql, "--db", archive]).stdout
    assert table.split() == ["yes", "no", "both", "true", "false", "[true,", "false]"], table
    import csv
    written = CliRunner().invoke(app, ["query", sql, "--db", archive, "--csv"]).stdout
    cells = list(csv.reader(written.splitlines()))
    assert cells == [["yes", "no", "both"], ["true", "false", "[true,false]"]]  # one spelling in a cell and a list
    (tmp_path / "q.csv").write_text(written)
    reread = duckdb.sql(f"SELECT yes, no FROM read_csv('{tmp_path / 'q.csv'}', header = true)").fetchall()
    assert reread == [(True, False)]
    row = json.loads(CliRunner().invoke(app, ["query", sql, "--db", archive, "--json"]).stdout)
    assert row == {"yes": True, "no": False, "both": [True, False]}


def test_a_query_with_no_rows_says_so_under_its_header(archive):
    none = CliRunner().invoke(app, ["query", "SELECT id, status FROM games WHERE false", "--db", archive])
    assert none.exit_code == 0 and none.stdout.splitlines() == ["id  status", "(no rows)"]
    one = CliRunner().invoke(app, ["query", "SELECT id FROM games WHERE id = 'fri-01-clean'", "--db", archive])
    assert one.stdout.splitlines() == ["id", "fri-01-clean"]
    assert CliRunner().invoke(app, ["query", "SELECT 1 WHERE false", "--db", archive, "--csv"]).stdout == "1\n"


def test_an_archive_named_as_a_folder_or_in_no_folder_is_refused_in_words(tmp_path):
    record = f"{SAMPLES}/01-clean-win.json"
    nowhere = str(tmp_path / "none" / "a.duckdb")
    for args, said in ((["load", record, "--db", str(tmp_path)], f"{tmp_path}: a folder, not an archive"),
                       (["stats", "--db", str(tmp_path)], f"{tmp_path}: a folder, not an archive"),
                       (["load", record, "--db", nowhere], f"there is no folder {tmp_path / 'none'}"),
                       (["stats", "--db", nowhere], f"{nowhere}: no such database")):
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 2 and said in res.output and "IO Error" not in res.output, (args, res.output)
    assert not (tmp_path / "none").exists()
    assert CliRunner().invoke(app, ["load", record, "--db", str(tmp_path / "a.duckdb")]).exit_code == 0


@pytest.mark.parametrize("sql", ["", " ", ";", " ; \n"])
def test_query_without_a_statement_is_a_usage_error(archive, sql):
    res = CliRunner().invoke(app, ["query", sql, "--db", archive])
    assert res.exit_code == 2 and "no SQL statement given" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("sql", ["SET lock_configuration = false", "SET memory_limit = '1TB'", "SET threads = 64",
                                 "SET temp_directory = '/tmp/spill'", "RESET memory_limit",
                                 "PRAGMA threads = 64", "SET enable_external_access = true"])
def test_query_cannot_lift_its_limits(archive, sql):
    with pytest.raises(DatabaseError, match="keeps its limits"):
        store.query(archive, sql)
    limits = store.query(archive, "SELECT current_setting('threads'), current_setting('lock_configuration')").rows
    assert limits == [(archive_query.QUERY_THREADS, True)]


def test_a_runaway_query_is_stopped_at_its_timeout(archive):
    t = time.monotonic()
    res = CliRunner().invoke(app, ["query", "SELECT sum(a.range * b.range) FROM range(300000) a, range(300000) b",
                                   "--db", archive, "--timeout", "0.5"])
    assert res.exit_code == 2 and "ran longer than 0.5 s and was stopped" in res.output
    assert time.monotonic() - t < 20


@pytest.mark.parametrize("digits", [28, 29, 35, 40])
def test_a_huge_stake_loads_exactly_and_alone(tmp_path, digits):
    db = str(tmp_path / "a.duckdb")
    stake = "9" * digits
    p = tmp_path / "g.jsonl"
    p.write_text(json.dumps(game(id="huge", stake=stake)) + "\n" + json.dumps(game(id="small", stake="1.00")) + "\n")
    rep = store.load_paths([str(p)], db)
    assert rep.added == 2
    rows = dict(store.query(db, "SELECT id, stake_text FROM games").rows)
    assert rows == {"huge": stake, "small": "1.00"}
    fits = store.query(db, "SELECT stake IS NOT NULL FROM games WHERE id = 'huge'").rows[0][0]
    assert fits == (digits <= 28)
    net = dict(store.query(db, "SELECT player, net_text FROM payouts WHERE game_id = 'huge'").rows)
    assert net["alice"] == "-" + str(2 * int(stake))


def test_wide_decimals_print_exactly(archive):
    res = CliRunner().invoke(app, ["query", "SELECT 12345678901234567890123456.1234567891::DECIMAL(38, 10) AS x",
                                   "--db", archive])
    assert res.exit_code == 0 and "12345678901234567890123456.1234567891" in res.output


def test_the_archive_holds_every_finding_validate_gives_its_games(tmp_path):
    """One pipeline: on the hostile corpus and the samples, every finding of every game the archive
    holds is a finding `validate --json` gives, and no other; a record the audit marks as a repeat
    (DUPLICATE_GAME, even after an unreadable first copy) is what `load` does not add
    (docs/rules.md), and its count is in the load's report."""
    import collections
    fuzz = str(Path(__file__).resolve().parent / "fuzz")
    db = str(tmp_path / "all.duckdb")
    report = store.load_paths([SAMPLES, fuzz], db)
    out = subprocess.run([sys.executable, "-m", "foreman_cli", "validate", "--json", SAMPLES, fuzz],
                         capture_output=True, text=True).stdout
    results = [json.loads(line) for line in out.splitlines()]
    want = collections.Counter()
    seen: set[str] = set()
    not_added = after_unreadable = 0
    for d in results:
        if d["status"] == "invalid":
            continue
        codes = [f["code"] for f in d["violations"]]
        if "DUPLICATE_GAME" in codes:
            # A readable repeat: validate marks it, load does not add it.
            not_added += 1
            after_unreadable += d["id"] not in seen
            continue
        assert d["id"] not in seen, d["source"]
        seen.add(d["id"])
        for f in d["violations"]:
            want[(d["id"], f["code"], f["deal"], f["trick"], f["player"], f["message"])] += 1
    con = duckdb.connect(db, read_only=True)
    got = collections.Counter(con.execute("SELECT game_id, code, deal, trick, player, message FROM findings")
                              .fetchall())
    con.close()
    assert got == want and sum(got.values()) > 5
    assert not_added > 10 and not_added == report.unchanged + len(report.conflicts)
    assert after_unreadable >= 2  # the corpus has repeats whose first copy could not be read


def _series_game(seq: int, dealer: int, gid: str, **kw):
    from builders import base_deal
    return game([base_deal(dealer)], id=gid, series={"id": "fri", "seq": seq}, **kw)


@pytest.mark.parametrize("jobs", [1, 2])
def test_load_judges_dealer_succession_and_repeats_as_validate_does(tmp_path, jobs):
    """The cross-game checks are the audit's: a wrong dealer in game 2 is a finding of the archive,
    and a repeat of game 1 after it changes nothing (docs/game.md §11: a repeat takes part in nothing else)."""
    g1 = _series_game(1, 0, "s1")
    g2 = _series_game(2, 0, "s2", rules={"next_dealer": "winner"})
    for name, recs, want in (("once", [g1, g2], 1), ("twice", [g1, g2, g1], 1)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in recs))
        validated = [json.loads(x) for x in subprocess.run(
            [sys.executable, "-m", "foreman_cli", "validate", "--json", str(path)],
            capture_output=True, text=True).stdout.splitlines()]
        said = sum(f["code"] == "DEALER_SUCCESSION" for d in validated for f in d["violations"])
        db = str(tmp_path / f"{name}-{jobs}.duckdb")
        rep = store.load_paths([str(path)], db, jobs=jobs, batch_games=1)
        con = duckdb.connect(db, read_only=True)
        stored = con.execute("SELECT count(*) FROM findings WHERE code = 'DEALER_SUCCESSION'").fetchone()[0]
        breaches = con.execute("SELECT breaches FROM games WHERE id = 's2'").fetchone()[0]
        # the repeat's own mark stays with the repeat, which is not added: s1 has no finding
        assert con.execute("SELECT count(*) FROM findings WHERE game_id = 's1'").fetchone()[0] == 0
        con.close()
        assert said == stored == want == breaches, name
        assert (rep.added, rep.unchanged) == (2, len(recs) - 2)


def test_a_series_place_held_twice_is_stored_as_a_warning_that_disputes_no_money(tmp_path):
    """SERIES_SEQ_SHARED comes at the end of the input, as dealer succession does, but is no breach:
    the game keeps no breach and its payouts stay undisputed, while game 2's wrong dealer goes unjudged."""
    recs = [_series_game(1, 0, "s1", stake="1.00"), _series_game(1, 0, "s1-other", stake="1.00"),
            _series_game(2, 0, "s2", rules={"next_dealer": "winner"})]
    path = tmp_path / "evening.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    db = str(tmp_path / "a.duckdb")
    store.load_paths([str(path)], db, batch_games=1)
    con = duckdb.connect(db, read_only=True)
    assert con.execute("SELECT game_id, code, severity FROM findings").fetchall() == \
        [("s1-other", "SERIES_SEQ_SHARED", "warning")]
    assert con.execute("SELECT breaches FROM games WHERE id = 's1-other'").fetchone() == (0,)
    assert con.execute("SELECT count(*), count(*) FILTER (disputed) FROM payouts WHERE game_id = 's1-other'")\
        .fetchone() == (3, 0)


def test_an_archive_whose_plays_are_rows_is_read_but_not_added_to(tmp_path):
    """An earlier foreman stored each play as a row; this one stores each deal once (docs/schema.md)."""
    db = str(tmp_path / "old.duckdb")
    con = duckdb.connect(db)
    con.execute("CREATE TABLE games (id VARCHAR PRIMARY KEY, players VARCHAR[])")
    con.execute("CREATE TABLE plays (game_id VARCHAR, card VARCHAR)")
    con.execute("INSERT INTO plays VALUES ('g1', 'AS')")
    con.close()
    res = runner.invoke(app, ["load", SAMPLES, "--db", db])
    assert res.exit_code == 2 and "earlier foreman" in res.output and "new archive" in res.output
    res = runner.invoke(app, ["query", "SELECT card FROM plays", "--db", db])
    assert res.exit_code == 0 and "AS" in res.output


def test_the_archive_is_the_same_whether_records_take_the_compiled_lane_or_not(tmp_path, monkeypatch):
    """Every stored row, the deals' card lists included, is the same when plain records take the
    compiled lane (their deals stored from its blocks) and when every record takes the full path."""
    from foreman_cli import lane
    from foreman_cli.rules import HouseRules
    recs = [r for r, _ in generate(40, 61, max_deals=8, claims=0.2)]
    recs += [r for r, _ in generate(30, 62, max_deals=8, rules=HouseRules(kitty="pickup", return_rule="higher"))]
    recs += [r for r, _ in generate(10, 63, inject="REVOKE", max_deals=4)]
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))

    def rows(db: str) -> dict[str, list]:
        con = duckdb.connect(db, read_only=True)
        try:
            out = {}
            for t in store.STORED:
                cols = [c for (c,) in con.execute(f"SELECT column_name FROM information_schema.columns "
                                                  f"WHERE table_name = '{t}' AND column_name != 'loaded_at'").fetchall()]
                out[t] = con.execute(f"SELECT {', '.join(cols)} FROM {t} ORDER BY ALL").fetchall()
            return out
        finally:
            con.close()

    taken = []
    real = lane.result
    monkeypatch.setattr(lane, "result", lambda *a, **k: taken.append(r := real(*a, **k)) or r)
    store.load_paths([str(path)], str(tmp_path / "lane.duckdb"), jobs=1)
    monkeypatch.setattr(lane, "result", lambda *a, **k: None)
    store.load_paths([str(path)], str(tmp_path / "full.duckdb"), jobs=1)
    if lane._SCAN is not None:
        assert sum(r is not None for r in taken) > 30  # the lane served the archive
    lane_rows, full_rows = rows(str(tmp_path / "lane.duckdb")), rows(str(tmp_path / "full.duckdb"))
    assert lane_rows == full_rows and len(lane_rows["deal_facts"]) > 150


def test_what_a_load_gets_back_of_a_staged_game_is_its_line_without_the_line():
    """A worker stages a game's rows and sends back only what the commit and the checks across
    games read; an invalid record comes back as its slim result, with the finding that says why."""
    import pickle
    from foreman_cli.reader import RawRecord
    from foreman_cli.results import GameLine
    recs = [json.dumps(r) for r, _ in generate(20, 5, max_deals=4)]
    results = [audit.check_record(RawRecord("c.jsonl", n + 1, t)) for n, t in enumerate(recs + ["{}"])]
    back = [audit.staged_line(r) for r in results]
    assert all(isinstance(b, GameLine) and b.line == b"" for b in back[:-1])
    assert [(b.id, b.status, b.fingerprint) for b in back] == [(r.id, r.status, r.fingerprint) for r in results]
    assert back[-1].status == "invalid" and back[-1].findings == results[-1].findings and back[-1].text is None
    assert len(pickle.dumps(back[:-1])) * 3 < len(pickle.dumps([audit.slim(r) for r in results[:-1]]))


def test_long_text_is_the_arrow_string_array_of_its_values():
    import pyarrow as pa
    values = ['{"notes": "Zoë 🂡 ☃"}', "", "x" * 70_000, "é"]
    for some in (values, [*values, None], [None], []):  # one buffer; through bytes where a value is null
        got = staging._long_text(some)
        got.validate(full=True)
        assert got.type == pa.string() and got.equals(pa.array(some, type=pa.string()))


def _raw_by_id(db: str) -> dict[str, str]:
    con = duckdb.connect(db, read_only=True)
    try:
        return dict(con.execute("SELECT id, raw FROM games").fetchall())
    finally:
        con.close()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_load_takes_the_records_text_from_the_file_and_stores_it_as_read(tmp_path, monkeypatch, jobs):
    """From plain JSON Lines a load's workers send back only where each record's text lies, and
    the reading process takes it from its own map of the file: the archive holds the same text as a
    load of the same lines from gzip, whose text comes back with the results. With a BOM, CRLF
    line ends, white space around records, blank lines, text that is not ASCII, over many chunks."""
    import gzip
    recs = [r for r, _ in generate(24, 71, max_deals=3)]
    for n, r in enumerate(recs):
        r["notes"] = f"table {n}: Zoë 🂡 ☃ " + "é" * n
    lines = [json.dumps(r, ensure_ascii=False).encode() for r in recs]
    data = b"\xef\xbb\xbf" + lines[0] + b"\r\n" + b"\n".join(
        (b" \t" + line + b"  \r" if n % 3 == 0 else b"\n" + line if n % 5 == 0 else line)
        for n, line in enumerate(lines[1:])) + b"\n"
    plain, packed = tmp_path / "g.jsonl", tmp_path / "g.jsonl.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    monkeypatch.setattr(chunks, "WORKER_CHUNK", 4000)  # a few records a chunk
    viewed = []
    real = staging._text_views
    monkeypatch.setattr(staging, "_text_views", lambda *a: viewed.append(len(a[1])) or real(*a))
    store.load_paths([str(plain)], str(tmp_path / "plain.duckdb"), jobs=jobs)
    assert len(viewed) > 3 and sum(viewed) == len(recs)  # every game's text taken from the file
    store.load_paths([str(packed)], str(tmp_path / "packed.duckdb"), jobs=1)
    assert sum(viewed) == len(recs)  # and none of the gzip's
    from_file, from_results = _raw_by_id(str(tmp_path / "plain.duckdb")), _raw_by_id(str(tmp_path / "packed.duckdb"))
    assert len(from_file) == len(recs) and from_file == from_results
    assert all(json.loads(from_file[r["id"]]) == r for r in recs)


def test_text_views_are_the_strings_at_their_places_copying_none():
    import pyarrow as pa
    texts = ["{}", "x: Zoë 🂡 ☃, a longer string than twelve bytes", "short", "", "twelve bytes", "thirteen byte"]
    data, places = b"", []
    for t in texts:  # a byte between each: the places are not one after the other
        places.append((len(data) + 1, len(t.encode())))
        data += b"\n" + t.encode()
    places = [places[2], *places]  # and one string twice
    arr = pa.StructArray.from_arrays([pa.array([a for a, _ in places], pa.int64()),
                                      pa.array([n for _, n in places], pa.int32())], names=["at", "size"])
    views, lo, hi = staging._text_views(data, arr)
    views.validate(full=True)
    assert views.type == pa.string_view()
    assert views.to_pylist() == [texts[2], *texts]
    assert (lo, hi) == (1, len(data))
    empty, _, _ = staging._text_views(data, arr.slice(0, 0))
    assert len(empty) == 0


def test_a_file_that_changes_while_it_is_loaded_stops_the_load(tmp_path, monkeypatch):
    """The text stored is the text replayed: once a worker has read a chunk, a file that changes
    (here, a game appended) is refused, and only the transactions committed before are kept."""
    from foreman_cli.errors import InputError
    path = tmp_path / "g.jsonl"
    recs = [r for r, _ in generate(12, 72, max_deals=3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    monkeypatch.setattr(chunks, "WORKER_CHUNK", 4000)
    batches = []

    def appended(n):
        batches.append(n)
        if len(batches) == 1:
            with open(path, "a") as f:
                f.write(json.dumps(recs[0]) + "\n")

    with pytest.raises(InputError, match="g.jsonl: the file changed while it was being loaded"):
        store.load_paths([str(path)], str(tmp_path / "a.duckdb"), jobs=1, batch_games=1, progress=appended)
    assert len(_raw_by_id(str(tmp_path / "a.duckdb"))) == batches[0] < len(recs)


def test_the_file_map_refuses_a_file_that_is_not_what_was_read(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    with open(path, "rb") as f:
        seen = chunks.FileSeen.of(f.fileno())
    files = chunks.FileMap()
    try:
        assert files.text(str(path), seen)[:8] == b'{"a": 1}'
        files.release(0, 9)
        files.check(seen)
        with pytest.raises(Exception, match="it was 9 bytes"):
            files.check(chunks.FileSeen(seen.device, seen.inode, 9, seen.mtime_ns + 1))
        os.utime(path, ns=(seen.mtime_ns + 10**9, seen.mtime_ns + 10**9))  # touched, its bytes the same
        with pytest.raises(Exception, match="the file changed"):
            files.check(seen)
    finally:
        files.close()
    assert files.map is None and files.source is None


def test_the_load_progress_bar_is_drawn_where_rich_takes_stderr_for_a_terminal(monkeypatch):
    from foreman_cli import render
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setenv("FOREMAN_PROGRESS_AFTER", "0")
    with render.WorkProgress("loading", "games") as bar:
        bar.advance(3)
        assert bar.progress is None  # pytest's stderr is no terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    with render.WorkProgress("loading", "games") as bar:
        bar.advance(3)
        assert bar.progress is not None and bar.progress.tasks[0].completed == 3
    monkeypatch.setenv("FORCE_COLOR", "")  # rich: set but empty is no terminal
    with render.WorkProgress("loading", "games") as bar:
        bar.advance(3)
        assert bar.progress is None


@pytest.mark.slow
@pytest.mark.reference_only
def test_a_time_without_an_offset_is_utc_whatever_the_machine_zone(tmp_path):
    """docs/format.md: a played_at without an offset is UTC, so the archive does not depend on TZ."""
    rec = game(id="naive", played_at="2026-01-01T19:00:00")
    path = tmp_path / "naive.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    seen = []
    for zone in ("UTC", "America/New_York", "Asia/Kolkata"):
        db = tmp_path / f"{zone.replace('/', '-')}.duckdb"
        env = {**os.environ, "TZ": zone}
        subprocess.run([sys.executable, "-m", "foreman_cli", "load", str(path), "--db", str(db)], env=env, check=True,
                       capture_output=True)
        shown = subprocess.run([sys.executable, "-m", "foreman_cli", "query", "SELECT played_at, epoch(played_at) AS e "
                                "FROM games", "--db", str(db), "--csv"], env=env, capture_output=True, text=True).stdout
        seen.append(shown)
    assert seen[0] == seen[1] == seen[2] and "2026-01-01T19:00:00+00:00,1767294000" in seen[0], seen


def test_a_record_file_whose_name_is_not_utf8_loads_with_the_byte_shown_and_exports_into_such_a_folder(tmp_path):
    """A name's byte that is not UTF-8 (an old Latin-1 disk) is kept by Python as a lone surrogate,
    which no DuckDB text or Parquet path can hold: the source shows it as Python shows bytes."""
    evening = tmp_path / os.fsdecode(b"Bj\xf6rn.jsonl")
    evening.write_bytes(Path(SAMPLES, "08-friday-evenings.jsonl").read_bytes())
    for jobs in ("1", "2"):
        db = str(tmp_path / f"a{jobs}.duckdb")
        res = runner.invoke(app, ["load", str(evening), "--db", db, "--jobs", jobs])
        assert res.exit_code == 0 and "6 games added" in res.output, res.output
        sources = {row[0] for row in duckdb.connect(db, read_only=True).sql("SELECT source FROM games").fetchall()}
        assert sources == {f"{tmp_path}/Bj\\xf6rn.jsonl:{n}" for n in range(1, 7)}
    folder = tmp_path / os.fsdecode(b"p\xf6")
    res = runner.invoke(app, ["export", "--parquet", str(folder), "--db", db])
    assert res.exit_code == 0 and "p\\xf6: 12 tables written" in res.output, res.output
    with open(folder / "games" / "data.parquet", "rb") as f:
        import pyarrow.parquet as pq
        assert pq.read_table(f).num_rows == 6
    res = runner.invoke(app, ["stats", "--db", str(tmp_path / os.fsdecode(b"x\xf6.duckdb"))])
    assert res.exit_code == 2 and "x\\xf6.duckdb: DuckDB cannot open a file whose name is not UTF-8 text" in res.output
