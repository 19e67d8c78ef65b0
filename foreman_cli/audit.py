"""The audit pipeline: read, decode, replay each game, then the checks across games."""

from __future__ import annotations

import gc
from bisect import bisect_left
from contextlib import contextmanager
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, BinaryIO

import msgspec

from hashlib import sha256

from . import engine, lane, records
from .chunks import ChunkText, LineChunk, is_plain_lines, line_chunks
from .reader import DEFAULT_MAX_RECORD_BYTES, RawRecord, Unreadable, expand, read_records
from .repeats import RecordsReadAgain
from .findings import (ERROR, DealerSuccession, DuplicateGame, Finding, RecordSchema, RecordSyntax, SeriesGap,
                       SeriesSeqShared, repeat_mark)
from .results import GameLine, GameResult, Status
from .workers import ordered_map


def check_record(raw: RawRecord, overrides: dict[str, Any] | None = None, fast: bool = False,
                 keep: bool = True) -> GameResult:
    """Decode and replay one raw record; an unreadable one gives an `invalid` result.

    With `fast`, a plain record takes the compiled lane (lane.py): the same result, but its game
    holds the deals only as card codes (blocks), which the archive reads and nothing that replays
    positions can; without `keep` it holds neither the game nor the record's text.
    """
    if fast and raw.text is not None:
        res = lane.result(raw.text, raw.where, overrides, fingerprint, keep)
        if res is not None:
            return res
    if raw.text is None:
        problems = _notation_errors(raw) or [(raw.error, raw.line, raw.column)]
        fs = [RecordSyntax(problem=problem, line=line, column=column, path="$") for problem, line, column in problems]
        return GameResult(id=raw.game_id, source=raw.where, status=Status.INVALID, findings=fs)
    data = records.decode(raw.text, overrides)
    if isinstance(data, records.Invalid):
        if data.code is RecordSyntax:
            line = raw.line + (data.line - 1 if data.line else 0)
            fs = [RecordSyntax(problem=p.message, line=line, column=data.column, path=p.path) for p in data.problems]
        else:
            fs = [RecordSchema(problem=p.message, path=p.path, line=_placed(raw, p.path)) for p in data.problems]
        return GameResult(id=data.id, source=raw.where, status=Status.INVALID, findings=fs, text=raw.text,
                          fingerprint=fingerprint(raw.text))
    return engine.replay(data, source=raw.where, text=raw.text, fingerprint=fingerprint(raw.text))


def _placed(raw: RawRecord, path: str) -> int | None:
    """The line of a notation game that wrote the field at `path`; None for JSON."""
    if raw.notation is None:
        return None
    from .notation_stream import line_of  # only for a notation game with a schema problem
    return line_of(raw.notation, raw.line, path)


def _notation_errors(raw: RawRecord) -> list[tuple[str, int, int | None]]:
    """Every unreadable line of a notation game whose first one is `raw`'s error; none for JSON."""
    if raw.notation is None:
        return []
    from .notation_stream import syntax_errors  # only for a notation game that cannot be read
    return syntax_errors(raw.notation, raw.line)


def fingerprint(text: str) -> bytes:
    """What tells two copies of a game apart: a hash of the record's text (the archive's
    `content_hash`): SHA-256, which most processors hash in hardware (docs/performance.md)."""
    return sha256(text.encode()).digest()[:16]


class CrossChecks(msgspec.Struct):
    """The checks that need more than one game: repeated ids and dealer succession in a series.

    `hold` (validate) keeps every result from the first series game on until the end, so each
    result is whole when it is given out. Without it (load, which commits batch by batch) each
    result is given out at once; only the series games are kept, and `finish` returns them with
    the findings the end of the input adds.
    """

    hold: bool = True
    pending: list[GameResult] = msgspec.field(default_factory=list)
    holding: bool = False
    ids: set[str] = msgspec.field(default_factory=set)  # every game id met so far
    # Where each id fed one by one was first met, and its fingerprint there; the ids of runs taken
    # whole join them only when one is looked up (_fold), so a run costs a set's union, not a
    # dict entry a game.
    seen: dict[str, str] = msgspec.field(default_factory=dict)
    fingerprints: dict[str, bytes] = msgspec.field(default_factory=dict)
    runs: list[tuple[list, list, list]] = msgspec.field(default_factory=list)  # ids, sources, fingerprints
    read_again: RecordsReadAgain = msgspec.field(default_factory=RecordsReadAgain)  # for repeats whose texts differ

    def first(self, game_id: str) -> tuple[str, bytes | None] | None:
        """Where `game_id` was first met and its fingerprint there, or None if it was not."""
        if game_id not in self.ids:
            return None
        if self.runs:
            self._fold()
        return self.seen[game_id], self.fingerprints.get(game_id)

    def _fold(self) -> None:
        for ids, sources, fingerprints in self.runs:
            self.seen.update((i, s) for i, s in zip(ids, sources) if i is not None)
            self.fingerprints.update((i, f) for i, f in zip(ids, fingerprints) if i is not None and f is not None)
        self.runs.clear()

    def feed(self, res: GameResult) -> list[GameResult]:
        """Take one result in input order; return the results that are final now."""
        if res.id is not None:
            first = self.first(res.id)
            if first is None:
                self.ids.add(res.id)
                self.seen[res.id] = res.source
                if res.fingerprint is not None:
                    self.fingerprints[res.id] = res.fingerprint
            else:
                same = res.fingerprint is not None and first[1] == res.fingerprint
                alike = True if same else self.read_again.same_record(first[0], res.source, getattr(res, "text", None))
                res = res.as_repeat(duplicate_finding(res.id, first[0], same, alike))
        # Dealer succession depends on every game of a series in the input (two different records
        # of one place in a series cancel the check), so from the first series game on, results wait.
        in_series = res.series is not None and res.status != "invalid"
        if not self.hold:
            if in_series:
                self.pending.append(res)
            return [res]
        self.holding = self.holding or in_series
        if self.holding:
            self.pending.append(res)
            return []
        return [res]

    def take_run(self, run: LineRun) -> bool:
        """Take a whole run of games in input order, when the checks can say at once that they add
        nothing to any of them (no repeat, no series game, nothing held): True, and the run's ids
        are noted as `feed` notes them. False, and nothing is noted: feed the games one by one."""
        if (self.holding and self.hold) or run.series.count(None) != len(run.series):
            return False
        ids = set(run.ids)
        ids.discard(None)
        if len(ids) != len(run.ids) - run.ids.count(None) or not self.ids.isdisjoint(ids):
            return False  # a repeat: within the run or of a game read before
        self.ids |= ids
        self.runs.append((run.ids, run.sources, run.fingerprints))
        return True

    def finish(self) -> list[GameResult]:
        """Run the series checks and return the results still held (the series games, without `hold`)."""
        by_key: dict[tuple[str, int], list[int]] = defaultdict(list)  # places in `pending`
        for i, result in enumerate(self.pending):
            # A repeat of an earlier id is not present at all: it neither stands in nor cancels the check.
            if result.series is not None and result.status != "invalid" and not result.repeat:
                by_key[result.series].append(i)
        out, self.pending = self.pending, []
        present: dict[str, list[int]] = defaultdict(list)
        for sid, seq in sorted(by_key):
            present[sid].append(seq)
        for (sid, seq), places in by_key.items():
            for later in places[1:]:  # a place held twice: said on each game after the first, in input order
                first, game = out[places[0]], out[later]
                out[later] = game.with_findings((SeriesSeqShared(game=game.id, series=(sid, seq), first_game=first.id,
                                                                 first=first.source),))
            below = bisect_left(present[sid], seq)
            if below and present[sid][below - 1] < seq - 1:  # places missing between two games of the input
                missing = (present[sid][below - 1] + 1, seq - 1)
                for at in places:
                    out[at] = out[at].with_findings((SeriesGap(game=out[at].id, series=(sid, seq), missing=missing),))
            prev = by_key.get((sid, seq - 1))
            if len(places) != 1 or not prev or len(prev) != 1:
                continue
            f = succession_finding(_facts(out[prev[0]]), _facts(out[places[0]]))
            if f is not None:
                out[places[0]] = out[places[0]].with_findings((f,))
        return out


def _facts(result: GameResult | GameLine) -> dict[str, Any]:
    return result.facts if isinstance(result, GameLine) else series_facts(result)


def game_line(result: GameResult, line: bool = True) -> GameLine:
    """The result as its line of `validate --json` and the little the checks across games need;
    without `line`, the little only."""
    facts = series_facts(result) if result.series is not None and result.status != "invalid" else None
    findings = result.findings
    return GameLine(result.id, result.source, result.status, result.fingerprint, result.series, facts,
                    tuple(f.code for f in findings), any(f.severity == ERROR for f in findings),
                    msgspec.json.encode(result.to_dict()) if line else b"")


def staged_line(result: GameResult) -> GameLine | GameResult:
    """What a load needs back of a game whose rows a worker has staged: its GameLine without the
    line (the ids, status and series facts the checks across games and the commit read), or, for
    an invalid record, the slim result, whose first finding says why it was left out."""
    return slim(result) if result.status == "invalid" else game_line(result, line=False)


def duplicate_finding(game_id: str, first: str, identical: bool, same_record: bool | None) -> Finding:
    """DUPLICATE_GAME for a repeat of a game first read at `first`."""
    return DuplicateGame(game=game_id, first=first, identical=identical, same_record=same_record)


def series_facts(res: GameResult) -> dict[str, Any]:
    """What dealer succession needs of a game in a series, as plain data (Spark carries it as JSON)."""
    losers: list[str] = []
    deciding = res.deciding
    if res.status == "won" and deciding is not None:
        others = [(deciding.tricks[s], p) for s, p in enumerate(res.players) if p != res.winner]
        fewest = min(n for n, _ in others)
        losers = [p for n, p in others if n == fewest]
    return {"id": res.id, "series": list(res.series) if res.series else None, "status": res.status,
            "winner": res.winner, "losers": losers, "first_dealer": res.first_dealer,
            "next_dealer": (res.rules or {}).get("next_dealer", "winner-or-loser")}


def succession_finding(prev: dict[str, Any], cur: dict[str, Any]) -> Finding | None:
    """DEALER_SUCCESSION when `cur` (game seq of a series) was dealt by someone the rule does not allow."""
    rule = cur["next_dealer"]
    if prev["status"] != "won" or rule == "free" or not cur["first_dealer"]:
        return None
    winner, losers = prev["winner"], prev["losers"]
    allowed = {"winner": [winner], "loser": losers, "winner-or-loser": [winner, *losers]}[rule]
    if cur["first_dealer"] in allowed:
        return None
    sid, seq = cur["series"]
    return DealerSuccession(deal=1, player=cur["first_dealer"], series=(sid, seq), previous_game=prev["id"],
                            allowed=tuple(allowed), next_dealer=rule, winner=winner, losers=tuple(losers))


def audit_records(raws: Iterable[RawRecord], overrides: dict[str, Any] | None = None,
                  jobs: int = 1, keep: bool = True) -> Iterator[GameResult]:
    """Replay every raw record and run the cross-game checks; yield results in input order.

    With jobs > 1 the replays run in that many worker processes; the results, and so the output,
    are the same as with one. `keep=False` drops each result's record text and decoded data
    (what only the archive needs), which spares copying them between processes.
    """
    return _cross_checked(chunked(raws, BATCH), overrides, jobs, None if keep else slim)


def _cross_checked(pieces, overrides, jobs: int, shape, limit: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[Any]:
    cross = CrossChecks(read_again=RecordsReadAgain(limit))
    for batch in checked_batches(pieces, overrides, jobs, shape):
        run = batch.staged if isinstance(batch.staged, LineRun) else None
        if run is not None and cross.take_run(run):
            yield run  # every game of the batch goes out as the worker wrote it
            continue
        for res in run.game_lines() if run is not None else batch.results:
            yield from cross.feed(res)
    yield from cross.finish()


class LineRun(msgspec.Struct):
    """A batch's games as their lines of `validate --json`, their counts, and, column by column,
    what the checks across games read of each (GameLine's fields): what goes out in one write
    when those checks add nothing to any of them. Made where the batch was replayed, it spares
    the reading process a write, a count and an object a game (what held `--jobs` back)."""

    text: bytes  # the lines, each ended by a newline
    summary: Summary
    ids: list[str | None]
    sources: list[str]
    statuses: list[Status]
    fingerprints: list[bytes | None]
    series: list[tuple[str, int] | None]
    facts: list[dict[str, Any] | None]
    codes: list[tuple[str, ...]]
    errors: list[bool]

    @classmethod
    def of(cls, lines: list[GameLine]) -> LineRun:
        """The run of a batch's lines."""
        summary = Summary()
        for gl in lines:
            summary.add(gl)
        return cls(b"".join([gl.line + b"\n" for gl in lines]), summary,
                   **{column: [getattr(gl, name) for gl in lines] for column, name in _RUN_COLUMNS})

    def __len__(self) -> int:
        return len(self.ids)

    def game_lines(self) -> list[GameLine]:
        """The run's games as their GameLines again, each with its line: for the checks across
        games one game at a time, when the run cannot go out whole."""
        columns = [getattr(self, column) for column, _ in _RUN_COLUMNS]
        return [GameLine(*fields) for fields in zip(*columns, self.text.split(b"\n"))]


# A run's columns and the GameLine field each holds, in GameLine's order (its line comes next).
_RUN_COLUMNS = (("ids", "id"), ("sources", "source"), ("statuses", "status"), ("fingerprints", "fingerprint"),
                ("series", "series"), ("facts", "facts"), ("codes", "codes"), ("errors", "errors"))


BATCH = 64  # records per task sent to a worker: large enough to amortise the hand-over


class Batch(msgspec.Struct):
    """Replayed games in input order, and what a stage made of them where they were replayed."""

    results: list[Any]  # GameResult, or what `shape` made of each; empty when `staged` is their LineRun
    staged: Any = None

    @property
    def games(self) -> int:
        """How many games the batch holds."""
        return len(self.staged) if isinstance(self.staged, LineRun) else len(self.results)


Piece = list[RawRecord] | LineChunk


def checked_batches(pieces: Iterable[Piece], overrides: dict[str, Any] | None = None, jobs: int = 1,
                    shape: Callable[[GameResult], Any] | None = None,
                    stage_of: Callable[[Piece], Callable[[list[GameResult]], Any]] | None = None,
                    fast: bool = True, ahead: int = 2, nice: int = 0,
                    started: Callable[[], None] | None = None) -> Iterator[Batch]:
    """Decode and replay the input a piece at a time (a batch of records, or a chunk of lines that
    the worker cuts itself), in input order: the one pipeline of `validate` and `load`. The checks
    across games are the caller's (CrossChecks).

    `stage_of` gives each piece its stage (what it must know of that piece alone): a module-level
    function or a partial of one, so workers can run it, that turns a batch's full results into
    what the caller keeps of them; `shape` then turns each result into what is sent back (a slim
    result, a GameLine). With jobs > 1 both run in the workers. With a shape (which drops the
    decoded game) and `fast`, plain records take the compiled lane (lane.py); a stage that
    replays positions (the analysis) needs the decoded deals and says `fast=False`. `ahead` is
    the tasks in flight a worker and `nice` how far the workers yield the CPU (ordered_map).
    `started` is called once, before the first batch is awaited: with workers, once they have
    their first tasks, so what the caller prepares then (a load opens its archive) overlaps them.
    """
    tasks = ((p, overrides, shape, None if stage_of is None else stage_of(p), fast) for p in pieces)
    if jobs > 1:
        batches = ordered_map(_check_batch, tasks, jobs, ahead, nice, started)
    else:
        if started is not None:
            started()
        batches = map(_check_batch, tasks)
    try:
        with no_cyclic_gc():
            done = 0
            for batch in batches:
                if done // YOUNG_COLLECT_EVERY != (done + batch.games) // YOUNG_COLLECT_EVERY:
                    # With the collector paused, the cycles an unreadable record leaves (its exception
                    # and traceback) would pile up (docs/performance.md, "Smaller costs").
                    gc.collect(0)
                done += batch.games
                yield batch
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()  # end the worker pool here, in order, not whenever the generator is collected


YOUNG_COLLECT_EVERY = 2048  # results between collections of the youngest generation only


def record_batches(raws: Iterable[RawRecord], count: int, max_bytes: int = 0) -> Iterator[list[RawRecord]]:
    """Raw records in batches of `count`, or fewer once their text reaches `max_bytes`."""
    return chunked(raws, count, size=_text_size if max_bytes else None, max_size=max_bytes)


def _text_size(raw: RawRecord) -> int:
    return len(raw.text) if raw.text is not None else 0


def pieces(paths: list[str], max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
           stdin: BinaryIO | None = None, batch: int = BATCH, batch_bytes: int = 0) -> Iterator[Piece]:
    """The input for workers: a plain `.jsonl` file in chunks of lines, which the workers cut into
    records themselves; anything else in batches of `batch` records, or fewer once their text
    reaches `batch_bytes`."""
    for p in expand(paths):
        if isinstance(p, Unreadable):
            yield [p.record()]
        elif is_plain_lines(p):
            for piece in line_chunks(p, max_record_bytes):
                yield piece if isinstance(piece, LineChunk) else [piece]
        else:
            yield from record_batches(read_records([p], max_record_bytes, stdin=stdin), batch, batch_bytes)


def _check_batch(task: tuple[Piece, dict[str, Any] | None, Any, Any, bool]) -> Batch:
    piece, overrides, shape, stage, fast = task
    # A chunk's records go to a stage with where they lie in the file: a load takes their text
    # from its own map of it, not from the results it is sent.
    chunk = stage is not None and isinstance(piece, LineChunk)
    raws = piece.records(spans=chunk) if isinstance(piece, LineChunk) else piece
    # The compiled lane's results hold no decoded deals, only their codes: for the validation's
    # lines and results (a shape drops the data) and the archive's stage (which keeps the text
    # and the codes), not for what replays positions (the analysis).
    fast, keep = fast and shape is not None, stage is not None
    with no_cyclic_gc():
        staged = None
        if stage is None and shape is not None:
            # Each result shaped as it is made, while it is still in the cache.
            out = [shape(check_record(raw, overrides, fast, keep)) for raw in raws]
        else:
            if chunk:
                raws = list(raws)
            out = [check_record(raw, overrides, fast, keep) for raw in raws]
            if chunk:
                staged = stage(out, texts=ChunkText(piece.source, piece.seen, [raw.span for raw in raws]))
            elif stage is not None:
                staged = stage(out)
            if shape is not None:
                out = [shape(result) for result in out]  # before it is pickled back: most of a result's size
        if shape is game_line:
            # The games go back as one run, in columns: the reading process then writes them at once.
            return Batch([], LineRun.of(out))
    return Batch(out, staged)


def slim(result: GameResult) -> GameResult:
    """The result without what only the archive's rows need: the record's text and data, the trick winners."""
    return replace(result, data=None, text=None, deals=[replace(d, winners=[]) for d in result.deals])


def chunked(items: Iterable[Any], count: int, size=None, max_size: int = 0) -> Iterator[list[Any]]:
    """Lists of `count` items, or fewer once their `size(item)` adds up to `max_size`."""
    batch: list[Any] = []
    total = 0
    for item in items:
        batch.append(item)
        if size is not None:
            total += size(item)
        if len(batch) >= count or (size is not None and total >= max_size):
            yield batch
            batch = []
            total = 0
    if batch:
        yield batch


class BatchInterrupt:
    """Ctrl-C noted and acted on between batches, so it never lands inside a write or the pool.

    A KeyboardInterrupt raised at an arbitrary point could land in the worker pool's bookkeeping
    or half way through a database statement (both seen: a hang, and a pool torn down at exit
    with tracebacks). Here the first Ctrl-C only sets `requested`; the caller stops at the next
    batch boundary. A second Ctrl-C interrupts at once, as usual.
    """

    def __init__(self) -> None:
        self.requested = False
        self._before: Any = None

    def __enter__(self) -> "BatchInterrupt":
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():
            self._before = signal.signal(signal.SIGINT, self._note)
        return self

    def _note(self, signum, frame) -> None:
        import signal
        self.requested = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def check(self) -> None:
        """Raise KeyboardInterrupt if Ctrl-C was pressed since the last batch."""
        if self.requested:
            raise KeyboardInterrupt

    def __exit__(self, *exc) -> None:
        import signal
        if self._before is not None:
            signal.signal(signal.SIGINT, self._before)


@contextmanager
def no_cyclic_gc():
    """Pause the cyclic garbage collector around bulk work.

    Replays make many small objects and no reference cycles, so the collector finds nothing and
    only costs time (docs/performance.md). Reference counting still frees everything as it goes,
    so memory stays flat.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def audit_paths(paths: list[str], overrides: dict[str, Any] | None = None,
                max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES, stdin: BinaryIO | None = None, jobs: int = 1,
                keep: bool = True) -> Iterator[GameResult]:
    """Read, replay and cross-check every game in the given paths ('-' is stdin); see audit_records."""
    return _cross_checked(_pieces(paths, max_record_bytes, stdin, jobs), overrides, jobs, None if keep else slim,
                          max_record_bytes)


def validation_lines(paths: list[str], overrides: dict[str, Any] | None = None,
                     max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES, stdin: BinaryIO | None = None,
                     jobs: int = 1) -> Iterator[GameLine | LineRun]:
    """What `validate --json` writes of the games in the paths, in input order: each game's line is
    made from its GameResult where it is replayed (in a worker, with jobs > 1), because sending the
    line back costs less than sending the result. A game comes as its GameLine, or a batch as one
    LineRun when the checks across games add nothing to any of its games."""
    return _cross_checked(_pieces(paths, max_record_bytes, stdin, jobs), overrides, jobs, game_line, max_record_bytes)


def _pieces(paths: list[str], max_record_bytes: int, stdin: BinaryIO | None, jobs: int) -> Iterable[Piece]:
    # With workers, a plain JSON Lines file goes out in chunks of lines that the workers cut into
    # records themselves: the reading process only reads.
    if jobs > 1:
        return pieces(paths, max_record_bytes, stdin)
    return chunked(read_records(paths, max_record_bytes, stdin=stdin), BATCH)


class Summary(msgspec.Struct):
    """Counts over a run of results, for the human summary."""

    by_code: dict[str, int] = msgspec.field(default_factory=dict)
    games: int = 0
    clean: int = 0
    with_breaches: int = 0
    unfinished: int = 0
    invalid: int = 0
    won: int = 0
    errors: int = 0
    repeats: int = 0  # records of an id read before: counted here only, never as games

    @property
    def has_errors(self) -> bool:
        """True when any game read has a breach or could not be replayed."""
        return self.errors > 0

    def add(self, result: GameResult) -> None:
        """Count one result (a repeat only as a repeat, with its DUPLICATE_GAME)."""
        mark = repeat_mark(result.findings)
        if mark is not None:
            self.repeats += 1
            self.errors += 1
            self.by_code[mark.code] = self.by_code.get(mark.code, 0) + 1
            return
        self.games += 1
        if result.status == "invalid":
            self.invalid += 1
        elif result.status == "unfinished":
            self.unfinished += 1
        else:
            self.won += 1
        if result.has_errors:
            self.errors += 1
            if result.status != "invalid":
                self.with_breaches += 1
        elif result.status != "invalid":
            self.clean += 1
        for f in result.findings:
            self.by_code[f.code] = self.by_code.get(f.code, 0) + 1
        for code in getattr(result, "codes", ()):  # a GameLine's own findings
            self.by_code[code] = self.by_code.get(code, 0) + 1

    def merge(self, other: Summary) -> None:
        """Add the counts of another run of results."""
        for name in self.__struct_fields__:  # msgspec.structs.fields resolves the type hints on each call
            if name != "by_code":
                setattr(self, name, getattr(self, name) + getattr(other, name))
        for code, n in other.by_code.items():
            self.by_code[code] = self.by_code.get(code, 0) + n
