"""Loading: record files read, replayed and staged through the audit's pipeline, written idempotently in transactions."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TYPE_CHECKING

import duckdb

from ..audit import (Batch, BatchInterrupt, CrossChecks, checked_batches, chunked, fingerprint, pieces, record_batches,
                     staged_line)
from ..errors import DatabaseError
from ..findings import ERROR, repeat_mark
from ..chunks import FileMap, FileSeen
from ..reader import DEFAULT_MAX_RECORD_BYTES, RawRecord, read_records
from ..repeats import RecordsReadAgain, record_digest
from ..results import GameLine, GameResult
from .schema import ANALYSIS_TABLES, NO_EXTENSIONS, STORED, TABLES, connect, init
from .staging import (BATCH_BYTES, BATCH_GAMES, finding_row, joined_tables, kept_rows, part_rows, stage_tables,
                      text_kind, unfolded_rows)

if TYPE_CHECKING:
    import pyarrow as pa


LOAD_MEMORY = "96MB"  # DuckDB's limit during a load: a long load stays flat

# Row groups smaller than DuckDB's default, so that the checkpoint compresses them on every core.
ROW_GROUP_ROWS = 8192

# Games a transaction holds (`load --batch`), or TRANSACTION_BYTES of staged rows: a transaction of
# a whole row group goes straight into the file, where a small one goes through the write-ahead log.
TRANSACTION_GAMES = ROW_GROUP_ROWS
TRANSACTION_BYTES = 96 * 1024 * 1024

WRITE_BYTES = 12 * 1024 * 1024  # staged rows held before they are written, one statement a table

LOAD_AHEAD = 5  # tasks in flight a worker: they go on staging while a transaction commits

LOAD_WORKER_NICE = 10  # a plain load's workers yield the CPU to its bottleneck, the archive's writes


@dataclass
class LoadReport:
    """What a load did: games added, unchanged, replaced, refused, and the conflicts by name."""

    conflicts: list[str] = field(default_factory=list)
    conflicts_in_input: int = 0  # of them, the ids read twice as other records (--replace does not help)
    invalid_sources: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)  # by table
    added: int = 0
    unchanged: int = 0
    replaced: int = 0
    invalid: int = 0
    plays: int = 0
    analysed: int | None = None  # games whose analysis was added (None: no analysis asked for)

    def to_dict(self, db: str) -> dict[str, Any]:
        """`load --json`: the counts, each conflict and each invalid record with why, rows per table."""
        return {"db": db, "added": self.added, "unchanged": self.unchanged, "replaced": self.replaced,
                "conflicts": self.conflicts, "invalid": self.invalid_sources, "plays": self.plays,
                "analysed": self.analysed, "rows": self.rows}


_INSERTS = [
    ("games", "INSERT INTO games SELECT * FROM _games"),
    ("deal_facts", "INSERT INTO deal_facts BY NAME SELECT * FROM _deals"),
    ("claims", "INSERT INTO claims SELECT * FROM _claims"),
    ("findings", "INSERT INTO findings SELECT * FROM _findings"),
    ("payouts", "INSERT INTO payouts SELECT * FROM _payouts"),
    ("play_costs", "INSERT INTO play_costs SELECT * FROM _play_costs"),
    ("deal_accuracy", "INSERT INTO deal_accuracy SELECT * FROM _deal_accuracy"),
]


def _write(con: duckdb.DuckDBPyConnection, parts: list[tuple[dict[str, pa.Table], list[int]]],
           report: LoadReport, files: FileMap | None = None) -> None:
    """Insert the games at places `keep` of each part's staged tables, all the parts together: one
    statement a table. The parts' tables have the same columns, and their text, if it is in a file
    (`_text_places`), is in the same file."""
    parts = [(tables, keep) for tables, keep in parts if keep]
    if not parts:
        return
    placed: list[tuple[FileSeen, int, int]] = []  # the text viewed in the file: as it was, and where
    kept = [part_rows(tables, keep, files, placed) for tables, keep in parts]
    tables = kept[0] if len(kept) == 1 else {name: joined_tables([k[name] for k in kept]) for name in kept[0]}
    _insert_staged(con, tables, report)
    deals = report.rows.pop("deal_facts", 0)
    for name, rows in unfolded_rows(tables["_deals"] if deals else None).items():
        report.rows[name] = report.rows.get(name, 0) + rows
    report.rows["game_players"] = 3 * report.rows.get("games", 0)
    for seen, lo, hi in placed:
        files.check(seen)  # changed while DuckDB read it: the transaction is rolled back
        files.release(lo, hi)
    report.plays = report.rows.get("plays", 0)


def _insert_staged(con: duckdb.DuckDBPyConnection, tables: dict[str, pa.Table], report: LoadReport) -> None:
    """Insert the staged tables there are (named as `_INSERTS` reads them), one statement a table,
    counting the rows each adds."""
    for name, t in tables.items():
        con.register(name, t)
    try:
        for table, sql in _INSERTS:
            staged = tables.get("_deals" if table == "deal_facts" else f"_{table}")
            if staged is None or not staged.num_rows:
                continue  # nothing to add (the analysis tables without --analyze, a batch without claims)
            count = con.execute(sql).fetchone()[0]
            report.rows[table] = report.rows.get(table, 0) + count
    finally:
        for name in tables:
            try:
                con.unregister(name)
            except duckdb.Error:
                pass  # after a failed statement: the first error is the one to tell


def load(results: Iterable[GameResult], path: str, replace: bool = False, batch_games: int = TRANSACTION_GAMES,
         progress: Callable[[int], None] | None = None) -> LoadReport:
    """Load what the audit gave (audit_records: its cross-game findings included) into the archive,
    `batch_games` games a transaction."""
    batches = (Batch(b, stage_tables(b)) for b in chunked(results, min(batch_games, BATCH_GAMES)))
    return _store(_Archive(path), batches, replace, progress, None, batch_games)


def load_paths(paths: list[str], path: str, overrides: dict[str, Any] | None = None, replace: bool = False,
               batch_games: int = TRANSACTION_GAMES, jobs: int = 1, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
               progress: Callable[[int], None] | None = None, analyze: int | None = None) -> LoadReport:
    """Read, replay and load record files through the audit's pipeline, `batch_games` games a
    transaction; with jobs > 1 the replays and the flattening run in workers.

    With `analyze` (a search budget in nodes) every deal of the games it adds is analysed into
    play_costs and deal_accuracy, and so are the games the archive holds already without their
    analysis; a game analysed before is not analysed again.
    """
    if jobs > 1:
        # pyarrow's first conversion is slow: made before the workers fork, it is made once.
        stage_tables([])
    parts = load_pieces(paths, max_record_bytes, batch_games, analyze is not None)
    archive = _Archive(path)
    # A plain load opens its archive once its workers are busy; --analyze's workers are the bottleneck.
    plain = analyze is None
    early = plain and jobs > 1
    analysed = None
    if not plain:
        archive.open()  # first: which games it holds analysed decides what the workers analyse
        analysed = _analysed_games(archive.con)
    stage_of = functools.partial(_piece_stage, analyze, frozenset(analysed or ()))
    batches = checked_batches(parts, overrides, jobs, shape=staged_line, stage_of=stage_of, fast=plain,
                              ahead=LOAD_AHEAD if plain else 2, nice=LOAD_WORKER_NICE if plain else 0,
                              started=archive.open if early else None)
    cross = CrossChecks(hold=False, read_again=RecordsReadAgain(max_record_bytes))
    return _store(archive, batches, replace, progress, cross, batch_games,
                  opened_as_workers_start=early, analysed=analysed)


def _analysed_games(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The content hashes of the games the archive holds with their analysis."""
    rows = con.execute("SELECT content_hash FROM games g SEMI JOIN deal_accuracy d ON d.game_id = g.id").fetchall()
    return {h for (h,) in rows}


def _piece_stage(analyze: int | None, analysed: frozenset[str],
                 piece: list[RawRecord]) -> Callable[[list[GameResult]], Any]:
    """A piece's stage: under --analyze told which of its games (by their text) need no analysis,
    so that a worker is sent those few hashes, not the archive's."""
    if analyze is None:
        return stage_tables
    if not analysed:
        return functools.partial(stage_tables, analyze=analyze)
    hashes = (fingerprint(raw.text).hex() for raw in piece if raw.text is not None)
    return functools.partial(stage_tables, analyze=analyze, analysed=frozenset(h for h in hashes if h in analysed))


ANALYSED_BATCH_GAMES = 4  # games a worker analyses as one task under --analyze


def load_pieces(paths: list[str], max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
                batch_games: int = TRANSACTION_GAMES, analysed: bool = False) -> Iterator[Any]:
    """The input of a load as its workers' tasks (audit.pieces)."""
    batch = min(batch_games, BATCH_GAMES)
    if not analysed:
        # Plain JSON Lines in chunks the workers read, as validate's are: this process has the writes to do.
        return pieces(paths, max_record_bytes, batch=batch, batch_bytes=BATCH_BYTES)
    # the analysis takes seconds a game: a task of a few games keeps every worker busy to the end
    return record_batches(read_records(paths, max_record_bytes), min(batch, ANALYSED_BATCH_GAMES), BATCH_BYTES)


class _Transaction:
    """The load's open transaction: games go in until it holds `games` games or `size` bytes of
    staged rows, then it commits, and the next begins. A batch may be split between two, but a
    game never is: one call of `_write` writes each game whole.

    Transactions of exactly a row group of games let DuckDB write every full row group of the
    records' text once, compressed, straight into the file; a transaction that stopped short of
    one would copy its last part row group again when it commits.

    The batches are written a few at a time (`WRITE_BYTES` of staged rows): a DuckDB statement
    costs about a millisecond and each table registered for it half as much again, whatever its
    rows, and a batch of a plain load is five inserts of about 700 games."""

    def __init__(self, con: duckdb.DuckDBPyConnection, games: int, size: int, files: FileMap,
                 report: LoadReport, write_bytes: int) -> None:
        self.con, self.games, self.size, self.write_bytes = con, games, size, write_bytes
        self.files = files  # the input file whose records' text the batches take from it
        self.report = report
        self.open = False
        self.held = self.bytes = 0
        self.pending: list[tuple[dict[str, pa.Table], list[int]]] = []  # held, not yet written
        self.pending_bytes = 0

    def add(self, batch: Batch, keep: list[int]) -> None:
        """Add the batch's games at places `keep`, committing whenever the transaction is full."""
        # The tables' whole buffers, not their bytes in use (nbytes): the same where nothing is sliced yet, and cheaper.
        row_bytes = (sum(t.get_total_buffer_size() for t in batch.staged.values()) / max(len(batch.results), 1)
                     if batch.staged else 0)
        try:
            if keep and self.pending and text_kind(self.pending[0][0]) != text_kind(batch.staged):
                self.write()  # another file, or text carried rather than taken from the file
            while keep:
                self.begin()
                part, keep = keep[:self.games - self.held], keep[self.games - self.held:]
                self.pending.append((batch.staged, part))
                self.held += len(part)
                self.bytes += int(row_bytes * len(part))
                self.pending_bytes += int(row_bytes * len(part))
                if self.held >= self.games or self.bytes >= self.size:
                    self.commit()
                elif self.pending_bytes >= self.write_bytes:
                    self.write()
        except BaseException:
            self.rollback()
            raise

    def write(self) -> None:
        """Write what is held, in the open transaction."""
        if self.pending:
            pending, self.pending, self.pending_bytes = self.pending, [], 0
            _write(self.con, pending, self.report, self.files)

    def begin(self) -> None:
        """Begin a transaction, unless one is open."""
        if not self.open:
            self.con.execute("BEGIN TRANSACTION")
            self.open = True

    def commit(self) -> None:
        """Commit what the transaction holds, if anything."""
        if self.open:
            self.write()
            self.open = False
            self.held = self.bytes = 0
            self.con.execute("COMMIT")

    def rollback(self) -> None:
        """Drop what the transaction holds, if anything."""
        self.pending, self.pending_bytes = [], 0
        if self.open:
            self.open = False
            try:
                self.con.execute("ROLLBACK")
            except duckdb.Error:
                pass  # a failed COMMIT has already ended the transaction; the first error is the one to tell

    def stop_if(self, stop: BatchInterrupt) -> None:
        """At a batch boundary after Ctrl-C: keep the whole batches held, then stop."""
        if stop.requested:
            self.commit()
        stop.check()


class _Archive:
    """The archive a load writes, opened once, when `open` is first called: by the audit's pipeline
    as the workers start (checked_batches' `started`), or by the load before its first batch."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.con: duckdb.DuckDBPyConnection | None = None
        self.empty = False  # when it was opened

    def open(self) -> None:
        """Connect for writing and create the tables if they are missing (once)."""
        if self.con is not None:
            return
        con = connect(self.path, row_group_rows=ROW_GROUP_ROWS)
        try:
            _write_settings(con)
            init(con, self.path)
            self.empty = con.execute("SELECT count(*) FROM games").fetchall()[0][0] == 0
        except BaseException:
            con.close()
            raise
        self.con = con

    def close(self) -> None:
        """Close the connection, if it was opened."""
        if self.con is not None:
            try:
                self.con.close()
            except duckdb.Error:
                pass


def _write_settings(con: duckdb.DuckDBPyConnection) -> None:
    # Checkpoint at the end: each transaction is durable when it commits, and the file is written once.
    con.execute("SET checkpoint_threshold = '1GB'")
    con.execute(f"SET memory_limit = '{LOAD_MEMORY}'")
    # The vacuum would rewrite each part-full row group and leave free blocks: only --replace needs it.
    con.execute("SET max_vacuum_tasks = 0")
    # Inserts on one thread: a second one only took the workers' CPU (the checkpoint gets them all back).
    con.execute("SET threads = 1")


def _store(archive: _Archive, batches: Iterator[Batch], replace: bool, progress: Callable[[int], None] | None,
           cross: CrossChecks | None, batch_games: int = TRANSACTION_GAMES,
           opened_as_workers_start: bool = False, analysed: set[str] | None = None) -> LoadReport:
    """Insert batch after batch, `batch_games` games a transaction; with `cross`, run the checks
    across games and add what the end of the input finds (dealer succession) to the games it concerns.
    The archive opens first, unless `batches` opens it as its workers start. With `analysed` (the
    content hashes of the games stored with their analysis) the batches carry analysis, and a game
    stored before without it gets it."""
    report = LoadReport(analysed=None if analysed is None else 0)
    added: set[str] = set()
    stop = BatchInterrupt()
    txn: _Transaction | None = None
    files = FileMap()
    # The records whose text differs from the archive's are compared by meaning, as the audit compares repeats.
    read_again = cross.read_again if cross is not None else RecordsReadAgain()
    try:
        with stop:
            if not opened_as_workers_start:
                archive.open()  # before any replay: a file in use is told at once
            batches = iter(batches)
            first = next(batches, None)
            archive.open()  # opened already; with no input at all, the workers never started
            con = archive.con
            # Empty when the load began: a game met again is a repeat the audit marks, never a stored one.
            fresh = cross is not None and archive.empty
            txn = _Transaction(con, batch_games, TRANSACTION_BYTES, files, report, WRITE_BYTES)
            for batch in itertools.chain([first] if first is not None else [], batches):
                txn.stop_if(stop)
                if cross is not None:  # without holding, the checks give each result back at once, marked
                    batch.results = [cross.feed(r)[0] for r in batch.results]
                txn.begin()
                if cross is None:
                    txn.write()  # the look-up finds the games of this load too: nothing marks their repeats
                keep = _insert(con, batch, replace, report, added, not fresh, analysed, read_again)
                txn.add(batch, keep)
                if progress:
                    progress(len(batch.results))
            txn.commit()
            _finish(con, report, stop, cross, added)
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None  # the transaction in progress was rolled back
    except duckdb.Error as e:
        raise _write_error(archive.path, e) from None
    except RuntimeError as e:
        # DuckDB reports Ctrl-C during a statement as RuntimeError("Query interrupted").
        if "interrupted" in str(e).lower():
            raise KeyboardInterrupt from None
        raise
    finally:
        if txn is not None:
            txn.rollback()  # after a failure: nothing of the transaction it broke off
        close = getattr(batches, "close", None)
        if close is not None:
            close()  # ends the worker pool here, in order
        archive.close()
        files.close()
    return report


def _finish(con: duckdb.DuckDBPyConnection, report: LoadReport, stop: BatchInterrupt, cross: CrossChecks | None,
            added: set[str]) -> None:
    """After the last transaction: the settings back, what the end of the input finds, a checkpoint."""
    con.execute("RESET threads")
    stop.check()
    if report.replaced:
        con.execute("RESET max_vacuum_tasks")
    if cross is not None:
        # A repeat is never present for the series checks; only the games added get their findings.
        _add_late_findings(con, [r for r in cross.finish() if r.id in added and repeat_mark(r.findings) is None])
    # The checkpoint closing would make, made here so that its failure (a full disk) is told.
    con.execute("CHECKPOINT")


def _add_late_findings(con: duckdb.DuckDBPyConnection, results: list[GameResult]) -> None:
    """The series checks are known only at the end of the input: add their findings to the games they concern."""
    rows = [(r.id, f) for r in results for f in r.findings if f.cross_game]
    if not rows:
        return
    con.execute("BEGIN TRANSACTION")
    for gid, f in rows:
        con.execute("INSERT INTO findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", list(finding_row(gid, f.to_dict())))
        if f.severity == ERROR:  # a warning (a series place shared or missing) is no breach, disputes nothing
            con.execute("UPDATE games SET breaches = breaches + 1 WHERE id = ?", [gid])
            con.execute("UPDATE payouts SET disputed = true WHERE game_id = ?", [gid])
    con.execute("COMMIT")


def archive_rows(results: list[GameResult], analyze: int | None = None) -> dict[str, pa.Table]:
    """The archive's rows for replayed games (each id at most once), as `export --parquet` writes them.

    The same flattening and SQL as `load`, into a database in memory: what Spark's load runs per batch.
    With `analyze` (a budget in nodes a search), the analysis tables too, as `load --analyze` fills them.
    """
    import pyarrow as pa
    tables = stage_tables(results, analyze)
    con = duckdb.connect(":memory:", config=dict(NO_EXTENSIONS))
    try:
        init(con)
        _write(con, [(tables, list(range(len(results))))], LoadReport())
        out = {}
        for name in TABLES:
            if name in ANALYSIS_TABLES and analyze is None:
                continue
            table = con.sql(f"SELECT * FROM {name}").to_arrow_table()
            # JSON columns come as an Arrow extension type: Parquet and Spark see the text.
            out[name] = pa.table([c.cast(c.type.storage_type) if isinstance(c.type, pa.ExtensionType) else c
                                  for c in table.columns],
                                 names=table.column_names)
        return out
    finally:
        con.close()


def _write_error(path: str, e: Exception) -> DatabaseError:
    """A one-line message for a failed write, saying what survived and what to do."""
    text = str(e).splitlines()[0]
    if re.search(r"No space left|File too large|disk is full|Could not write", text, re.I):
        return DatabaseError(f"{path}: the disk is full (or a file size limit was reached) while loading: {text}",
                             hint="the games committed before are intact; free some space and run the same load "
                                  "again to add the rest")
    if "Out of Memory" in text:
        return DatabaseError(f"{path}: a batch of games did not fit in the database's memory: {text}",
                             hint="the games committed before are intact; run the load again with a smaller --batch")
    return DatabaseError(f"{path}: {text}", hint="the games committed before are intact; run the load again")


def _insert(con: duckdb.DuckDBPyConnection, batch: Batch, replace: bool, report: LoadReport, added: set[str],
            lookup: bool, analysed: set[str] | None, read_again: RecordsReadAgain) -> list[int]:
    """A batch, in the open transaction: skip repeats and games already there, refuse conflicts or
    delete what they replace; the places in the batch of the games to write (their ids go in `added`).
    With `analysed` (an analysing load) a game there already without its analysis gets it here.

    Without `lookup` (an archive empty when the load began, whose repeats the audit marks) no
    game can be there already: the look-up, a scan of every game stored so far, is skipped.
    """
    import pyarrow as pa
    existing = _stored_hashes(con, batch) if lookup else {}
    keep: list[int] = []  # places in the batch of the games to insert
    late: list[int] = []  # places of games stored before, whose analysis alone is to insert
    drop: list[str] = []
    ids: list[str] = []
    for n, r in enumerate(batch.results):
        if r.status == "invalid":
            report.invalid += 1
            report.invalid_sources.append(f"{r.source}: {r.findings[0].text() if r.findings else 'invalid record'}")
            continue
        repeat = repeat_mark(r.findings)
        if repeat is not None:  # the audit found this id earlier in the input
            if not repeat.in_doubt:
                report.unchanged += 1
            else:
                other = "another record of this game" if repeat.same_record is False else "another text of this game"
                report.conflicts.append(f"{r.id} ({r.source}): {other} is earlier in the input")
                report.conflicts_in_input += 1
            continue
        old = existing.get(r.id)
        if old is not None:
            alike = old == r.fingerprint.hex() or _stored_alike(con, r, read_again)
            if alike:
                report.unchanged += 1
                if analysed is not None and old not in analysed:
                    late.append(n)
                continue
            if not replace:
                held = "another record of this game" if alike is False else "this game with another text"
                report.conflicts.append(f"{r.id} ({r.source}): the archive holds {held}")
                continue
            drop.append(r.id)
            report.replaced += 1
        else:
            report.added += 1
        keep.append(n)
        ids.append(r.id)
    if drop:
        con.register("_drop", pa.table({"id": drop}))
        for name in STORED:
            key = "id" if name == "games" else "game_id"
            con.execute(f"DELETE FROM {name} WHERE {key} IN (SELECT id FROM _drop)")
        con.unregister("_drop")
    added.update(ids)
    if analysed is not None:
        _add_analysis(con, batch, keep, late, analysed, report)
    return keep


def _stored_hashes(con: duckdb.DuckDBPyConnection, batch: Batch) -> dict[str, str]:
    """The content hash of each game of the batch the archive holds already, by id."""
    import pyarrow as pa
    looked = [r.id for r in batch.results if r.status != "invalid"]
    con.register("_ids", pa.table({"id": pa.array(looked, type=pa.string())}))
    existing = dict(con.execute("SELECT g.id, g.content_hash FROM games g SEMI JOIN _ids USING (id)").fetchall())
    con.unregister("_ids")
    return existing


def _stored_alike(con: duckdb.DuckDBPyConnection, result: GameResult | GameLine,
                  read_again: RecordsReadAgain) -> bool | None:
    """True when the archive's record of the game says what `result`'s does, written another way
    (as notation and as JSON, re-indented): their JSON values, compared as repeats are (repeats.py).
    None when the new record cannot be read again to compare (standard input)."""
    stored = con.execute("SELECT raw FROM games WHERE id = ?", [result.id]).fetchall()
    new = read_again.digest(result.source, getattr(result, "text", None))
    return None if not stored or new is None else record_digest(stored[0][0]) == new


def _add_analysis(con: duckdb.DuckDBPyConnection, batch: Batch, keep: list[int], late: list[int],
                  analysed: set[str], report: LoadReport) -> None:
    """Write the analysis of the games at `late` (stored before without it; the games of `keep` are
    written whole), and count the games of both that the batch carries an analysis of (a game
    without hands has none), taken as analysed from now on."""
    if late:
        _write_analysis(con, batch.staged, late, report)
    carried = set(batch.staged["_deal_accuracy"].column("_n").to_pylist())
    for n in keep + late:
        if n in carried:
            report.analysed += 1
            analysed.add(batch.results[n].fingerprint.hex())


def _write_analysis(con: duckdb.DuckDBPyConnection, staged: dict[str, pa.Table], places: list[int],
                    report: LoadReport) -> None:
    """The analysis rows of the games at `places` (stored before without them), in the open transaction."""
    _insert_staged(con, {f"_{t}": kept_rows(staged[f"_{t}"], places).drop_columns(["_n"]) for t in ANALYSIS_TABLES},
                   report)
