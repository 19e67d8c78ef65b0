"""Turning results into what a person reads (rich) or a program reads (JSON Lines, CSV)."""

from __future__ import annotations

import dataclasses
import decimal
import io
import itertools
import json
import os
import re
import sys
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import IO, Any

import msgspec

from . import money
from .audit import LineRun, Summary
from .findings import CODES, ERROR
from .results import GameLine, GameResult
from .words import head_to_head_title, plural, shown_id, shown_text, signed


# Characters of record text (or query results) that a terminal would obey rather than show: C0 and
# C1 controls (ESC starts a sequence that can clear the screen or retitle the window) and the
# bidirectional overrides that make text read other than it is. Newlines and tabs are layout.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """Text with every character a terminal would act on shown as an escape, e.g. '\\x1b'."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


# rich, bound on the first human output (`_load_rich`): a `--json` run never imports it.
Console = Segment = Table = Text = Progress = BarColumn = TextColumn = TimeElapsedColumn = _SafeConsole = None


def _load_rich() -> None:
    """Import rich and define the safe console, once."""
    global Console, Segment, Table, Text, Progress, BarColumn, TextColumn, TimeElapsedColumn, _SafeConsole
    if _SafeConsole is not None:
        return
    from rich.console import Console, RenderHook
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.segment import Segment
    from rich.table import Table
    from rich.text import Text

    class _Visible:
        """A renderable drawn as another, with the control characters of its content escaped."""

        def __init__(self, renderable) -> None:
            self.renderable = renderable

        def __rich_console__(self, console, options):
            # Segments marked `control` are rich's own cursor and screen codes; the rest is content.
            for s in console.render(self.renderable, options):
                yield s if s.control else Segment(visible(s.text), s.style)

    class _Escaping(RenderHook):
        def process_renderables(self, renderables):
            return [_Visible(r) for r in renderables]

    class _SafeConsole(Console):
        """A rich Console that never sends control characters of the content to the terminal."""

        def __init__(self, **options) -> None:
            super().__init__(**options)
            self.push_render_hook(_Escaping())


def console(file: IO[str] | None = None) -> Console:
    """A console that writes plain text, 120 columns wide, when not on a terminal (or with NO_COLOR)."""
    _load_rich()
    file = file or sys.stdout
    tty = hasattr(file, "isatty") and file.isatty()
    # Names and messages come from records: never read them as markup or emoji codes.
    return _SafeConsole(file=file, highlight=False, soft_wrap=True, width=None if tty else 120, markup=False,
                        emoji=False)


_encoder = msgspec.json.Encoder()
_encode, _encode_lines = _encoder.encode, _encoder.encode_lines


def plain(text: str, out: IO[str] | None = None) -> None:
    """Write one line of plain text on stdout."""
    (out or sys.stdout).write(text + "\n")


def json_line(obj: Any, out: IO[str]) -> None:
    """Write one object as a JSON line."""
    out.write(_encode(obj).decode() + "\n")


def validation_json(results: Iterable[GameResult | GameLine | LineRun], out: IO[str] | None = None) -> Summary:
    """Write one JSON line per game; return the counts."""
    out = out or sys.stdout
    summary = Summary()
    for r in results:
        if isinstance(r, LineRun):  # a batch of lines, written where it was replayed
            summary.merge(r.summary)
            _write_utf8(out, r.text)
            continue
        summary.add(r)
        if isinstance(r, GameLine):  # made in a worker
            out.write(r.json().decode() + "\n")
        else:
            json_line(r.to_dict(), out)
    return summary


def _write_utf8(out: IO[str], data: bytes) -> None:
    """Write UTF-8 bytes to a text stream: straight to its bytes beneath when it has them and
    writes UTF-8 (decoding them only to encode them again costs the reading process time), else
    decoded."""
    raw = getattr(out, "buffer", None)
    if raw is not None and _is_utf8(getattr(out, "encoding", None)):
        out.flush()  # what was written as text goes first
        raw.write(data)
    else:
        out.write(data.decode())


def utf8_stdout() -> None:
    """Standard output in UTF-8, the encoding of JSON, CSV and notation, whatever the locale (a
    Latin-1 one would write a name as bytes no JSON reader, nor foreman, takes for the name)."""
    if not _is_utf8(getattr(sys.stdout, "encoding", None)) and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")


def _is_utf8(encoding: str | None) -> bool:
    import codecs
    try:
        return encoding is not None and codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def game_title(result: GameResult) -> Text:
    title = Text()
    title.append(result.source, style="bold")
    title.append(f"  game {shown_id(result.id) if result.id else '(no id)'}  ")
    if result.repeat:  # its own status would read as a game counted: it takes part in nothing
        title.append("read again, not counted", style="yellow")
    elif result.status == "won":
        title.append(f"won by {result.winner} in deal {result.deals_played}", style="green")
    elif result.status == "unfinished":
        title.append(f"unfinished after {plural(result.deals_played, 'deal')}", style="yellow")
    else:
        title.append("invalid: cannot be replayed", style="red")
    return title


def validation_human(results: Iterable[GameResult], out: IO[str] | None = None, quiet: bool = False) -> Summary:
    """Write each game's findings in plain English, then a summary (not when quiet); return the counts."""
    con = console(out)
    summary = Summary()
    for r in results:
        summary.add(r)
        if not r.findings:
            continue
        con.print(game_title(r))
        for f in r.findings:
            line = Text("  ")
            if f.place:
                line.append(f.place + ": ")
            line.append(f.message)
            line.append(f" ({f.code})", style="bold red" if f.severity == ERROR else "yellow")
            con.print(line)
        if getattr(r, "findings_not_shown", 0):
            con.print(f"  and {r.findings_not_shown:,} more findings (a game keeps its first {len(r.findings):,})")
    if not quiet:
        _validation_summary(con, summary)
    return summary


def _validation_summary(con: Console, summary: Summary) -> None:
    table = Table(title="foreman validate", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    for label, n in (("games read", summary.games), ("clean", summary.clean),
                     ("with breaches", summary.with_breaches), ("won", summary.won),
                     ("unfinished", summary.unfinished), ("invalid", summary.invalid)):
        table.add_row(label, str(n))
    if summary.repeats:
        table.add_row("read again, not counted", str(summary.repeats))  # the DUPLICATE_GAME row below says why
    con.print()
    con.print(table)
    if summary.by_code:
        codes = Table(show_header=True, box=None, pad_edge=False)
        codes.add_column("code")
        codes.add_column("findings", justify="right")
        codes.add_column("meaning")
        for code, n in sorted(summary.by_code.items(), key=lambda kv: (-kv[1], kv[0])):
            codes.add_row(code, str(n), CODES[code].title)
        con.print()
        con.print(codes)


def schema(obj: dict[str, Any], out: IO[str] | None = None) -> None:
    """Print a JSON document (the JSON Schema, a settlement) indented."""
    (out or sys.stdout).write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def exported(folder: str, rows: dict[str, int], as_json: bool) -> None:
    """What `foreman export` wrote: each table and its rows, in a line or as one JSON object."""
    if as_json:
        return schema({"dir": shown_text(folder), "rows": rows})
    tables = ", ".join(f"{name} {n:,}" for name, n in rows.items())
    console().print(f"{shown_text(folder)}: {plural(len(rows), 'table')} written as Parquet (rows: {tables})",
                    soft_wrap=True)


def events_json(events: list[Any], players: tuple[str, ...], doubts: tuple[str, ...] = (),
                out: IO[str] | None = None) -> None:
    """Print a replay's events as a JSON array, one event a line, seats and cards in words; each of
    `doubts` (trace.Trace's) as a warning on standard error, the array being the first record's."""
    out = out or sys.stdout
    out.write("[\n" + ",\n".join(json.dumps(e.to_dict(players), ensure_ascii=False) for e in events) + "\n]\n")
    for line in doubts:
        warning(f"in doubt: {line}", "the events are the first record's")


def codes(selected: list[str], out: IO[str] | None = None) -> None:
    """Print the reference of finding codes (all, or the ones named)."""
    con = console(out)
    for code in selected:
        info = CODES[code]
        con.print(Text(f"{code}", style="bold") + Text(f"  ({info.severity})  {info.title}"))
        con.print(f"  Rule: {info.rule}")
        con.print(f"  Evidence shown: {info.shows}")
        con.print(f"  Example: {info.example()}")
        con.print()


def error(message: str, hint: str = "") -> None:
    """Print a one-line error (and its hint) on standard error."""
    _to_stderr("foreman: ", "bold red", message, hint)


def warning(message: str, hint: str = "") -> None:
    """Print a one-line warning (and its hint) on standard error."""
    _to_stderr("foreman: warning: ", "bold yellow", message, hint)


def _to_stderr(prefix: str, style: str, message: str, hint: str) -> None:
    _load_rich()
    con = _SafeConsole(file=sys.stderr, highlight=False, soft_wrap=True, markup=False, emoji=False)
    con.print(Text(prefix, style=style) + Text(shown_text(message)))  # a path's undecoded byte as \xf6
    if hint:
        con.print(Text(f"hint: {shown_text(hint)}", style="dim"))


def fitted_table(con: Console, columns: list[tuple[str, str]], rows: list[list[Any]], whole: set[str],
                 optional: list[str], **table_args: Any) -> tuple[Any, list[str]]:
    """A table that fits the terminal without cutting a number, an id or a word: each column keeps
    its longest word (the `whole` columns their widest cell) on one line. Where even that is too
    wide, the `optional` columns are left out in turn; the names left out are returned, to say so."""
    dropped: list[str] = []
    while True:
        keep = [i for i, (name, _) in enumerate(columns) if name not in dropped]
        table = Table(box=None, pad_edge=False, **table_args)
        needed = 2 * (len(keep) - 1)  # a space either side of each inner edge
        for i in keep:
            name, justify = columns[i]
            texts = [name, *(str(row[i]) for row in rows)]
            widest = max(len(t) if name in whole else max((len(w) for w in t.split()), default=0) for t in texts)
            table.add_column(name, justify=justify, min_width=widest, no_wrap=name in whole, overflow="fold")
            needed += widest
        for row in rows:
            table.add_row(*(row[i] for i in keep))
        left = [name for name in optional if name not in dropped]
        if needed <= con.width or not left:
            return table, dropped
        dropped.append(left[0])


def say_dropped(con: Console, dropped: list[str]) -> None:
    if dropped:
        con.print(Text(f"(a terminal {con.width} columns wide: {', '.join(dropped)} left out; a wider terminal "
                       "or --json shows them)", style="dim"))


class WorkProgress:
    """A progress bar on standard error for long work, on a terminal only: it appears once the work
    has taken a second and is gone when it ends. Not while the command writes its results to the
    same terminal as it goes: those lines are the progress there, and a bar would tear them."""

    def __init__(self, doing: str, unit: str, streams_to_terminal: bool = False) -> None:
        import time
        self.doing, self.unit, self.clock = doing, unit, time.monotonic
        self.delay = _seconds(os.environ.get("FOREMAN_PROGRESS_AFTER"), 1.0)
        self.started_at = self.clock()
        self.done = 0
        self.progress = None
        # rich is imported only where a bar may be drawn: a load's workers start sooner without it
        self.enabled = _may_be_terminal(sys.stderr) and not (streams_to_terminal and _may_be_terminal(sys.stdout))

    def __enter__(self) -> "WorkProgress":
        return self

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

    def advance(self, n: int = 1) -> None:
        """Count n more done; draw the bar once the work has lasted `delay` seconds."""
        self.done += n
        if not self.enabled:
            return
        if self.progress is None:
            if self.clock() - self.started_at < self.delay:
                return
            self._start()
        if self.progress is not None:
            self.progress.update(self.task, completed=self.done)

    def _start(self) -> None:
        _load_rich()
        con = Console(file=sys.stderr, markup=False, emoji=False)
        if not con.is_terminal:
            self.enabled = False
            return
        self.progress = Progress(TextColumn(self.doing), BarColumn(bar_width=None),
                                 TextColumn("{task.completed:,} " + self.unit), TimeElapsedColumn(), console=con,
                                 transient=True, redirect_stdout=False, redirect_stderr=False)
        self.task = self.progress.add_task(self.doing, total=None, completed=self.done)
        self.progress.start()

    def counted(self, items: Iterable[Any]) -> Iterable[Any]:
        """The items, each counted as it is taken."""
        for item in items:
            yield item
            self.advance()


def _seconds(text: str | None, default: float) -> float:
    """A number of seconds from the environment, or the default when it is absent or not one."""
    try:
        return max(0.0, float(text)) if text else default
    except ValueError:
        return default


def _may_be_terminal(f) -> bool:
    """Whether rich could take f for a terminal: it is one, or the environment may say to treat it
    as one (TTY_COMPATIBLE, FORCE_COLOR: rich decides)."""
    if "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ:
        return True
    try:
        return bool(f.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def load_report(rep, db: str, out: IO[str] | None = None, quiet: bool = False) -> None:
    """Say what a load did (when quiet, only its conflicts and invalid records)."""
    con = console(out)
    if not quiet:
        analysed = "" if rep.analysed is None else f"; {plural(rep.analysed, 'game')} analysed"
        con.print(f"{shown_text(db)}: {plural(rep.added, 'game')} added, {rep.unchanged:,} unchanged, "
                  f"{rep.replaced:,} replaced, "
                  f"{plural(len(rep.conflicts), 'conflict')}, {plural(rep.invalid, 'invalid record')} not loaded; "
                  f"{plural(rep.plays, 'play')}{analysed}")
    for c in rep.conflicts:
        con.print(Text("  conflict: ", style="bold red") + Text(c))
    if len(rep.conflicts) > rep.conflicts_in_input:
        con.print(Text("  nothing was overwritten: use --replace to load the new version", style="dim"))
    if rep.conflicts_in_input:
        con.print(Text("  the first of two different records of one game in the input was loaded: take the wrong "
                       "one out (if it was the first, load again with --replace)", style="dim"))
    for s in rep.invalid_sources[:20]:
        con.print(Text("  invalid: ", style="yellow") + Text(s))
    if len(rep.invalid_sources) > 20:
        con.print(f"  ... and {len(rep.invalid_sources) - 20} more invalid records")


_WIDE = decimal.Context(prec=80)  # any DECIMAL(38, 10) and more, exactly (the default context has 28 digits)


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        # DuckDB's DECIMAL(38, 10) pads with zeros: show at least 2 places, and no padding.
        value = value.normalize(_WIDE)
        return format(value.quantize(Decimal("0.01"), context=_WIDE) if value.as_tuple().exponent > -2 else value, "f")
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (bytes, timedelta)):  # as --json writes them (base64, ISO 8601), not as Python prints them
        return _encode(value).decode()[1:-1]
    if isinstance(value, (list, tuple)):
        return [_plain(x) for x in value]
    if isinstance(value, dict):
        return {str(k): _plain(x) for k, x in value.items()}
    return value


MORE_COUNTED = 1_000_000  # rows a table counts beyond those it shows, then says "more than"
TABLE_ROWS_AT_MOST = 100_000  # rows `--limit 0` shows: the table is held whole, so it is bounded


def query_table(res, title: str | None = None, out: IO[str] | None = None, con: Console | None = None,
                limit: int = 0, people: bool = False) -> None:
    """A query result as a table of at most `limit` rows (0: all), numbers aligned on the right.

    On a terminal the table fits the screen; elsewhere no value is ever cut. `people` shows rates
    as percentages and nets with their sign, as the statistics read.
    """
    con = con or console(out)
    shown = limit or TABLE_ROWS_AT_MOST  # a table is held whole to align it: a bound on what it holds
    stream = iter(res.rows)  # rows may be a list: the count of those not shown must go on from the last shown
    rows = list(itertools.islice(stream, shown))
    more = sum(1 for _ in itertools.islice(stream, MORE_COUNTED + 1))
    cells = [[_cell(c, v, people) for c, v in zip(res.columns, row)] for row in rows]
    right = [bool(rows) and all(_is_number(r[i]) or r[i] is None for r in rows) for i in range(len(res.columns))]
    if title:
        con.print(title)
    if con.is_terminal:
        table = Table(box=None, pad_edge=False, show_header=True)
        for c, r in zip(res.columns, right):
            table.add_column(c, justify="right" if r else "left")
        for row in cells:
            table.add_row(*row)
        con.print(table)
    else:
        _plain_table(con, [[visible(v) for v in row] for row in [list(res.columns), *cells]], right)
    if not rows:
        con.print("(no rows)")  # a header alone could pass for output cut short
    if more:
        said = f"more than {MORE_COUNTED:,} more rows" if more > MORE_COUNTED else plural(more, "more row")
        if limit:
            warning(f"{said} not shown (--limit {limit})", "--limit 0 shows them all; --csv or --json stream them")
        else:
            warning(f"{said} not shown: a table shows at most {TABLE_ROWS_AT_MOST:,}",
                    "--csv or --json stream any number of rows")


def _plain_table(con: Console, rows: list[list[str]], right: list[bool]) -> None:
    """Rows of shown text (the header first) aligned by the columns each takes on a screen (a CJK
    character two), every value whole."""
    from rich.cells import cell_len
    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(right))]
    for row in rows:
        pads = [" " * (w - cell_len(v)) for v, w in zip(row, widths)]
        line = "  ".join(p + v if r else v + p for v, p, r in zip(row, pads, right)).rstrip()
        if "\t" in line:  # rich expands a tab by the cells before it
            con.print(line, soft_wrap=True)
        else:  # what rich prints of a plain line, written without rich's cost of a line
            con.file.write(line + "\n")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def rate(share: float) -> str:
    """A rate as every human view shows one: a percentage with one decimal."""
    return f"{share:.1%}"


def _cell(column: str, value: Any, people: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):  # SQL's spelling, not Python's
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):  # as SQL writes a list ([judy, erin, frank]), not as Python does
        return "[" + ", ".join("NULL" if v is None else _cell(column, v, people) for v in value) + "]"
    if people and isinstance(value, (float, Decimal)) and (column.endswith("_rate") or column == "accuracy"):
        return rate(float(value))
    if people and isinstance(value, Decimal) and column.startswith("net"):
        return money.signed(Decimal(_plain(value)))
    if people and isinstance(value, float):
        return signed(value) if "outcome" in column else f"{value:.2f}"
    # A line break inside a cell would break the table's rows: shown as \n (--json and --csv keep it)
    return str(_plain(value)).replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")


_AS_IS = frozenset((str, int, float, bool, type(None)))  # values written as they are: most of a result, one lookup
_CSV_AS_IS = _AS_IS - {bool}


def query_json(res, out: IO[str] | None = None) -> None:
    """A query result as JSON Lines, one object per row, written as the rows come."""
    out, cols, rows = out or sys.stdout, res.columns, iter(res.rows)
    while batch := [dict(zip(cols, [v if type(v) in _AS_IS else _plain(v) for v in row]))
                    for row in itertools.islice(rows, 1024)]:
        _write_utf8(out, _encode_lines(batch))  # a run of lines at once: a write a row took as long


def query_csv(res, out: IO[str] | None = None) -> None:
    """A query result as CSV with a header, written as the rows come."""
    import csv  # CSV output only
    out, text = out or sys.stdout, io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(res.columns)
    rows = iter(res.rows)
    while text.tell():  # rows written a run at a time, made in memory: a write a row took as long
        out.write(text.getvalue())
        text.seek(0)
        text.truncate()
        writer.writerows(["" if v is None else v if type(v) in _CSV_AS_IS else _csv_value(v) for v in row]
                         for row in itertools.islice(rows, 1024))


def _csv_value(value: Any) -> Any:
    """A value of a CSV cell: a list, a struct or a boolean as its JSON text (a boolean as it stands in a
    list's), which a sheet or a script can read back."""
    plain = _plain(value)
    return _encode(plain).decode() if isinstance(plain, (list, dict, bool)) else plain


def stats_report(st, out: IO[str] | None = None) -> None:
    """The statistics tables."""
    con = console(out)
    if not st.players.rows:
        con.print("No games in the archive yet (or none for that player): foreman load PATH adds them.")
        return
    for title, res in (("Players", st.players), ("By role (D dealer, L left, R right)", st.roles),
                       ("Findings by player", st.findings), ("Money", st.money), (head_to_head_title(), st.head_to_head),
                       ("Accuracy: share of cards that cost no trick (load --analyze)", st.accuracy)):
        if not res.rows:
            continue
        query_table(res, title, con=con, people=True)
        con.print()
    for group in _clashes(st):
        con.print(name_clash(group, "counted apart"))


def stats_json(st, out: IO[str] | None = None) -> None:
    """The statistics as one JSON object of row lists."""
    doc = {}
    for f in dataclasses.fields(st):
        name, res = f.name, getattr(st, f.name)
        doc[name] = [{c: _plain(v) for c, v in zip(res.columns, row)} for row in res.rows]
    doc["name_clashes"] = _clashes(st)
    schema(doc, out)


def _clashes(st) -> list[list[str]]:
    from .records import name_clashes
    at = st.players.columns.index("player")
    return name_clashes(row[at] for row in st.players.rows)


def wrote(path: str, size: int, out: IO[str] | None = None) -> None:
    """Say that a file was written (a message: on standard error)."""
    console(out or sys.stderr).print(f"wrote {shown_text(path)} ({size:,} bytes)")


def name_clash(group: list[str], kept: str) -> str:
    """Names that are one once case and Unicode forms are set aside, and what the view did with them."""
    return (f"{', '.join(group[:-1])} and {group[-1]} are one name once case and Unicode forms are set aside: "
            f"{kept}; if they are one player, write the name the same way in every record")


def canonical_json(obj: Any) -> str:
    """A certificate as written: indented for people (its hashes are over the canonical form)."""
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def fairness_view(screen, out: IO[str] | None = None) -> None:
    """The screen in plain words: a verdict per player, then the tests."""
    from .fairness import CORRECTION_NAMES, verdicts
    con = console(out)
    con.print(Text(f"Deal fairness: {plural(screen.deals, 'deal')} ({screen.left_out}), "
                   f"{len(screen.tests)} tests, alpha {screen.alpha} "
                   f"after {CORRECTION_NAMES[screen.correction]}'s correction",
                   style="bold"))
    for line in verdicts(screen):
        con.print(("  ! " if not line.split(": ", 1)[1].startswith("nothing") else "  ") + line)
    if not screen.tests:
        con.print("Nothing to screen: no deal read has its hands recorded.")
        return
    names = ("player", "as", "test", "deals", "mean", "chance", "edge (SD)", "p", "adjusted", "deals for 90%")
    columns = [(name, "left" if name in ("player", "as", "test") else "right") for name in names]
    rows = []
    for x in screen.tests:
        need = x.to_dict(screen.alpha)["deals_needed"]
        rows.append([x.player, x.as_, x.test, str(x.deals), f"{x.observed:.2f}", f"{x.expected:.2f}",
                     signed(x.effect), f"{x.p:.2g}", Text(f"{x.p_adjusted:.2g}", style="bold red" if x.flagged else ""),
                     f"{need:,}" if need else "-"])
    table, dropped = fitted_table(con, columns, rows, set(names[3:]) | {"player"},
                                  ["deals for 90%", "chance", "p", "mean", "as"])
    con.print()
    con.print(table)
    say_dropped(con, dropped)
    if "deals for 90%" not in dropped:
        con.print(Text("'deals for 90%': how many deals it would take to see an edge of that size at alpha with 90% "
                       "power.", style="dim"))
