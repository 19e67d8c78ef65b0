"""Read-only SQL over an archive: a sandboxed connection, a bounded process, results fetched in bounded pieces."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..errors import UsageError, DatabaseError
from .schema import ANALYSIS_TABLES, SCHEMA, UNFOLDED, VIEWS, connect

@dataclass
class QueryResult:
    """Columns and rows of a query."""

    columns: list[str]
    rows: Iterable[tuple]  # a list, or an iterator when streamed (open_query)

QUERY_MEMORY = "1GB"

QUERY_THREADS = 2

DEFAULT_TIMEOUT = 60.0


def read_archive(path: str) -> duckdb.DuckDBPyConnection:
    """The archive opened to read what foreman stored in it, trusting nothing else in the file:
    its views and macros are foreman's own again (made over them, in the connection's temporary
    schema), its stored tables must be tables, and the query sandbox holds (no file, no network,
    bounded memory). An archive someone sends may hold a view that reads local files."""
    con = connect(path, read_only=True)
    try:
        kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables "
                                 "WHERE table_catalog = current_database() AND table_schema = 'main'").fetchall())
        if kinds.get("plays") == "BASE TABLE" and "deal_facts" not in kinds:
            _sandbox(con)  # an earlier foreman's rows of plays: read as they are, in the sandbox
            return con
        wrong = [t for t in ("games", "deal_facts", "findings", "payouts", "claims") if kinds.get(t) != "BASE TABLE"]
        if wrong:
            raise DatabaseError(f"{path} is not a foreman archive: {wrong[0]!r} is not one of its tables")
        for name in ANALYSIS_TABLES:
            if kinds.get(name) != "BASE TABLE":  # an archive older than --analyze: empty ones stand in
                con.execute(_temporary(next(t for t in SCHEMA.split(";") if f"EXISTS {name} " in t)))
        con.execute(_temporary(UNFOLDED + VIEWS))
        _sandbox(con)
    except duckdb.Error as e:
        con.close()
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    except BaseException:
        con.close()
        raise
    return con


def _temporary(sql: str) -> str:
    """Definitions made in the connection's temporary schema, where they come before the file's."""
    return (sql.replace("CREATE OR REPLACE VIEW", "CREATE OR REPLACE TEMP VIEW")
               .replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO")
               .replace("CREATE TABLE IF NOT EXISTS", "CREATE TEMP TABLE"))

QUERY_PROCESS_BYTES = 1536 << 20  # what a query may add to the process's data: DuckDB's limit and room for rows


@contextmanager
def bounded_query_process() -> Iterator[None]:
    """While a query runs, cap the data this process may add (RLIMIT_DATA), and put the limit back
    after it (a program, or a test, that runs a query goes on with its own limit; children started
    meanwhile inherit the cap).

    DuckDB's memory_limit governs its buffers, not what a single expression allocates:
    `repeat('x', 2000000000)` reached 4 GB under a 1 GB limit. Past the cap an allocation fails,
    which DuckDB reports as out of memory (and Python as MemoryError): one line, not the machine's
    memory."""
    import resource
    before = resource.getrlimit(resource.RLIMIT_DATA)
    cap = _data_cap(before)
    if cap is not None:
        resource.setrlimit(resource.RLIMIT_DATA, (cap, before[1]))
    try:
        yield
    finally:
        if cap is not None:
            resource.setrlimit(resource.RLIMIT_DATA, before)


def _data_cap(limits: tuple[int, int]) -> int | None:
    """QUERY_PROCESS_BYTES above the data in use now, within the hard limit; None to set none."""
    import resource
    try:
        status = Path("/proc/self/status").read_text()
        data_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmData:"))
    except (OSError, StopIteration, ValueError):
        return None  # no /proc: the cap cannot be placed above what is in use
    soft, hard = limits
    cap = data_kb * 1024 + QUERY_PROCESS_BYTES
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    return cap if soft == resource.RLIM_INFINITY or soft > cap else None


def _sandbox(con: duckdb.DuckDBPyConnection) -> None:
    """Bound a query's memory and threads, forbid files and spilling, then lock the settings."""
    con.execute(f"SET memory_limit = '{QUERY_MEMORY}'")
    con.execute(f"SET threads = {QUERY_THREADS}")
    con.execute("SET enable_progress_bar = false")  # its bar would land in the output
    con.execute("SET temp_directory = ''")  # no spilling to disk (before file access is closed)
    # Nor any other file: no COPY TO, no ATTACH, no reads of files beside the archive.
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")  # a query's own SET is refused from here on


def query(path: str, sql: str, timeout: float = DEFAULT_TIMEOUT) -> QueryResult:
    """Run SQL on a read-only, locked-down connection; stopped after `timeout` seconds."""
    with open_query(path, sql, timeout) as res:
        return QueryResult(res.columns, list(res.rows))

FETCH_ROWS = 2048  # rows fetched at a time from a streaming result


@contextmanager
def open_query(path: str, sql: str, timeout: float = DEFAULT_TIMEOUT, whole: bool = False) -> Iterator[QueryResult]:
    """Run SQL as `query` does, the rows streamed: `rows` is an iterator, to be read inside the block.

    The timeout bounds the wait for the first rows (a query that computes for long without an
    answer); once rows come, the reader sets the pace, so a long result streams whole. With
    `whole` (the table, which also counts the rows it does not show) it bounds the whole run.
    """
    import threading
    if not sql.strip().strip(";").strip():
        raise UsageError("no SQL statement given", hint="e.g. foreman query \"SELECT * FROM player_summary\"")
    con = read_archive(path)
    timer = threading.Timer(timeout, con.interrupt)
    try:
        with _query_errors(timeout):
            statements = con.extract_statements(sql)
            if len(statements) > 1:  # DuckDB would run them all and show only the last one's rows
                raise UsageError(f"the SQL holds {len(statements)} statements; give one at a time",
                                 hint="run 'foreman query' once per statement")
            if statements:
                _refuse_what_is_not_a_read(statements[0])
            if " ".join(sql.upper().split()).rstrip("; ") == "SHOW TABLES":
                sql = SHOW_TABLES  # the file's views and foreman's own over them share names: each once
            timer.start()
            cur = con.execute(sql)
            if cur is None or cur.description is None:
                yield QueryResult([], [])
                return
            first = cur.fetchmany(1)
            if not whole:
                timer.cancel()
            yield QueryResult([d[0] for d in cur.description], _stream(cur, first))
    finally:
        timer.cancel()
        con.close()

SHOW_TABLES = r"SELECT DISTINCT name FROM (SHOW TABLES) WHERE name NOT LIKE '\_%' ESCAPE '\' ORDER BY name"

# Statements that only read: SHOW, DESCRIBE and SUMMARIZE parse as SELECT, PIVOT as MULTI.
READING_STATEMENTS = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "CALL", "MULTI"})
COMMENTS_BEFORE = re.compile(r"(?:\s|/\*.*?\*/|--[^\n]*\n)*", re.S)  # matches any text's start (empty if none)
# CHECKPOINT, FORCE CHECKPOINT and CALL (force_)checkpoint(), after any comments before them
CHECKPOINT = re.compile(COMMENTS_BEFORE.pattern + r"(?:call\s+)?(?:force[\s_]+)?checkpoint\b", re.I | re.S)


def _refuse_what_is_not_a_read(statement) -> None:
    """Refuse a statement that is not a read, naming its kind: one that changes only this session
    (DROP VIEW plays, CREATE TEMP TABLE, BEGIN, LOAD) would otherwise report a success that changed nothing."""
    try:
        kind = statement.type.name
    except ValueError:  # a statement type newer than this DuckDB's Python enum knows
        kind = None
    if kind == "SET":  # SET, RESET, USE and PRAGMA x = y
        raise DatabaseError("query keeps its limits: a setting cannot be changed",
                            hint=f"a query may use {QUERY_MEMORY} and {QUERY_THREADS} threads; settings cannot be changed")
    if kind == "CALL" and CHECKPOINT.match(statement.query):  # DuckDB parses CHECKPOINT as a CALL
        kind = "CHECKPOINT"
    if kind not in READING_STATEMENTS:
        # Quoted as written: DuckDB's kind can name another word (INSTALL parses as LOAD).
        written = " ".join(statement.query[COMMENTS_BEFORE.match(statement.query).end():].split())
        shown = written if len(written) <= 60 else written[:57] + "..."
        raise DatabaseError(f'query only reads the archive: "{shown}" is not a read',
                            hint="give a SELECT (or SHOW, DESCRIBE, EXPLAIN, PRAGMA); "
                                 "use foreman load to add games, foreman export for files")

FETCH_BYTES = 16 << 20  # about what one fetch of rows may hold: a few huge rows are fetched a few at a time


def _stream(cur: duckdb.DuckDBPyConnection, first: list[tuple]) -> Iterator[tuple]:
    """The rows, fetched in batches sized to hold about FETCH_BYTES (at most FETCH_ROWS rows)."""
    rows, size = first, 1
    while rows:
        yield from rows
        sample = rows[::max(1, len(rows) // 64)]  # sizing by every row took as long as writing it
        per_row = max(1, sum(_row_bytes(r) for r in sample) // len(sample))
        size = max(1, min(FETCH_ROWS, size * 2, FETCH_BYTES // per_row))
        rows = cur.fetchmany(size)


def _row_bytes(row: tuple) -> int:
    return sum(len(v) if isinstance(v, (str, bytes)) else 8 for v in row)


LISTING_HINT = ('the tables and views: foreman query "SHOW TABLES"; '
                'a table\'s columns: foreman query "DESCRIBE games"')
PARSE_HINT = "DuckDB could not read the statement as SQL: the word quoted is where it stopped"
# DuckDB's lines after the first that help mend the query: its guess at a name, the names there are.
_SUGGESTIONS = ("Did you mean", "Candidate bindings")


@contextmanager
def _query_errors(timeout: float) -> Iterator[None]:
    """DuckDB's errors of a query as one-line messages with a hint that fits."""
    try:
        yield
    except duckdb.InterruptException:
        raise DatabaseError(f"the query ran longer than {timeout:g} s and was stopped",
                            hint="narrow it (WHERE, LIMIT) or give more time with --timeout SECONDS") from None
    except duckdb.Error as e:
        msg = _one_line(str(e))
        if "lock_configuration" in msg or "configuration has been locked" in msg.lower():
            raise DatabaseError(f"query keeps its limits: {msg}",
                                hint=f"a query may use {QUERY_MEMORY} and {QUERY_THREADS} threads; "
                                     "settings cannot be changed") from None
        if "read-only" in msg or isinstance(e, duckdb.PermissionException):
            raise DatabaseError(f"query only reads the archive: {msg}",
                                hint="queries cannot change the archive or touch other files; "
                                     "use foreman load to add games, foreman export for files") from None
        hint = PARSE_HINT if isinstance(e, duckdb.ParserException) else LISTING_HINT
        raise DatabaseError(f"query failed: {msg}", hint=hint) from None


def _one_line(message: str) -> str:
    """DuckDB's error on one line: its first line, and its suggestion of a name when it makes one."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    kept = lines[:1] + [line for line in lines[1:] if line.startswith(_SUGGESTIONS)]
    return " ".join(kept)
