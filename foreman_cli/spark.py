"""foreman on Apache Spark: validate and load archives of records, per game in mapInArrow.

Each record is checked by foreman's own audit of one record (`audit.check_record`) inside
`mapInArrow`; the checks across games (a repeated id, dealer succession in a series) are windows
and joins in Spark, with foreman's own wording. Nothing about games is collected to the driver.

    frame = records_frame(spark, ["s3a://club/records/"])
    validate(frame).write.parquet("out/results")          # the columns of `validate --json`
    for name, df in load(frame).items():                  # the tables of `export --parquet`
        df.write.parquet(f"out/archive/{name}")
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa

from .audit import check_record, duplicate_finding, series_facts, succession_finding
from .findings import CODES, ERROR, SeriesGap, SeriesSeqShared
from .repeats import record_digest
from .reader import DEFAULT_MAX_RECORD_BYTES, SUFFIXES, WIDE_MARKS, RawRecord, line_record, read_named

from pyspark.sql.types import (ArrayType, BinaryType, BooleanType, IntegerType, LongType, MapType, StringType,
                               StructField, StructType)


def _struct(*fields: tuple[str, Any]) -> StructType:
    return StructType([StructField(n, t, True) for n, t in fields])


S, I, L = StringType(), IntegerType(), LongType()
# A record frame: one row a record as cut from its file, in input order by (file_index, line).
RECORDS = _struct(("file_index", I), ("file", S), ("line", L), ("value", S), ("error", S), ("column", I),
                  ("notation", S), ("game_id", S))
VIOLATION = _struct(("code", S), ("severity", S), ("deal", I), ("trick", I), ("pass", I), ("player", S),
                    ("card", S), ("path", S), ("message", S), ("evidence", S))
# The columns of `validate --json`; a violation's evidence is JSON text.
RESULTS = _struct(("id", S), ("source", S), ("status", S), ("winner", S), ("deals_played", I),
                  ("deciding_tricks", MapType(S, I)), ("net", MapType(S, S)), ("stake", S), ("currency", S),
                  ("violations", ArrayType(VIOLATION)))
_AUDIT = _struct(("file_index", I), ("line", L), ("id", S), ("status", S), ("fingerprint", BinaryType()),
                 ("series_id", S), ("series_seq", L), ("facts", S), ("result", S))
_FINDING = _struct(("file_index", I), ("line", L), ("finding", S))
_SPLITS = _struct(("uri", S), ("start", L), ("n", L), ("odd", BooleanType()))
_CONTENT = _struct(("file_index", I), ("line", L), ("content", BinaryType()))
_BLOBS = _struct(("name", S), ("ipc", BinaryType()))
_OUT_ROWS = 500  # rows per Arrow batch handed back to Spark: results are a few kB each
_LINES = (".jsonl", ".jsonl.gz")
_CODE_ORDER = {code: n for n, code in enumerate(CODES)}


# ---- input ------------------------------------------------------------------------------------


def list_files(spark, paths: Iterable[str]) -> list[tuple[str, str]]:
    """(name as foreman would print it, qualified URI) of every record file, in foreman's order.

    A directory gives its record files (by suffix, as `foreman validate DIR`), sorted by name.
    """
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    out: list[tuple[str, str]] = []
    for p in paths:
        path = jvm.org.apache.hadoop.fs.Path(p)
        fs = path.getFileSystem(conf)
        root = fs.makeQualified(path).toString()
        if not fs.getFileStatus(path).isDirectory():
            out.append((p, root))
            continue
        found, it = [], fs.listFiles(path, True)
        while it.hasNext():
            uri = it.next().getPath().toString()
            if uri.endswith(SUFFIXES):
                found.append((os.path.join(p, uri[len(root):].lstrip("/")), uri))
        out.extend(sorted(found))
    return out


def records_frame(spark, paths: Iterable[str], whole_files: bool = False,
                  max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES):
    """A record frame (RECORDS) of the files under `paths`.

    JSON Lines (`.jsonl`, `.jsonl.gz`) are read with Spark's text reader, split across tasks, and
    numbered by line; every other file (or every file, with `whole_files`) is read whole by
    foreman's own reader in one task, exactly as `foreman validate` reads it.
    """
    files = list_files(spark, paths)
    index = {uri: (i, name) for i, (name, uri) in enumerate(files)}
    lines = [uri for _, uri in files if uri.endswith(_LINES) and not whole_files]
    whole = [uri for _, uri in files if not (uri.endswith(_LINES) and not whole_files)]
    frames = []
    if lines:
        line_frame, odd = _line_records(spark, lines, index, max_record_bytes)
        frames.append(line_frame)
        whole += odd
    if whole:
        frames.append(_whole_records(spark, whole, index, max_record_bytes))
    if not frames:
        return spark.createDataFrame([], RECORDS)
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f)
    return out


def _line_records(spark, uris: list[str], index: dict, limit: int):
    """The frame of the JSON Lines files, and the files to read whole instead: those that begin with
    a UTF-16 mark (one error for the file, as foreman's reader gives, not one a line)."""
    from pyspark.sql import functions as F
    # The lines as bytes: Spark keeps a byte that is not UTF-8 as it is, which Arrow cannot make a str of.
    text = (spark.read.option("lineSep", "\n").text(uris)
            .select(F.col("value").cast("binary").alias("value"), F.col("_metadata.file_path").alias("uri"),
                    F.col("_metadata.file_block_start").alias("start")))
    # A split's first line number: the lines of the file's earlier splits (a small table, one row
    # a split, is what the driver sees). Rows keep their order within a split in mapInArrow.
    splits = text.mapInArrow(_split_sizes, _SPLITS).collect()
    odd = sorted({r["uri"] for r in splits if r["odd"]})
    text = text.where(~F.col("uri").isin(odd)) if odd else text
    counts = sorted((r["uri"], r["start"], r["n"]) for r in splits if r["uri"] not in odd)
    first: dict[tuple[str, int], int] = {}
    for k, (uri, start, n) in enumerate(counts):
        first[(uri, start)] = 0 if k == 0 or counts[k - 1][0] != uri else first[counts[k - 1][:2]] + counts[k - 1][2]

    def cut(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        key, line = None, 0
        for b in batches:
            rows: list[RawRecord] = []
            fidx: list[int] = []
            for value, uri, start in zip(*(b.column(c).to_pylist() for c in ("value", "uri", "start"))):
                if (uri, start) != key:
                    key, line = (uri, start), first[(uri, start)]
                line += 1
                file_number, name = _file_of(index, uri)
                raw = line_record(name, line, value, limit)
                if raw is not None:
                    rows.append(raw)
                    fidx.append(file_number)
            yield _raw_batch(rows, fidx)

    return text.mapInArrow(cut, RECORDS), odd


def _split_sizes(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Each split's lines, and whether it is a file's first split that begins with a UTF-16 mark."""
    sizes: dict[tuple[str, int], int] = {}
    odd: set[str] = set()
    for b in batches:
        for value, uri, start in zip(*(b.column(c).to_pylist() for c in ("value", "uri", "start"))):
            key = (uri, start)
            if key not in sizes and start == 0 and value[:2] in WIDE_MARKS:
                odd.add(uri)
            sizes[key] = sizes.get(key, 0) + 1
    yield pa.RecordBatch.from_pydict({"uri": [k[0] for k in sizes], "start": [k[1] for k in sizes],
                                      "n": list(sizes.values()), "odd": [k[0] in odd for k in sizes]},
                                     schema=_arrow_schema(_SPLITS))


def _whole_records(spark, uris: list[str], index: dict, limit: int):
    files = spark.read.format("binaryFile").load(uris).select("path", "content")

    def cut(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            for uri, content in zip(b.column("path").to_pylist(), b.column("content").to_pylist()):
                file_number, name = _file_of(index, uri)
                rows = list(read_named(io.BufferedReader(io.BytesIO(content)), name, limit))
                for start in range(0, len(rows), _OUT_ROWS):
                    chunk = rows[start:start + _OUT_ROWS]
                    yield _raw_batch(chunk, [file_number] * len(chunk))

    return files.mapInArrow(cut, RECORDS)


def _file_of(index: dict, uri: str) -> tuple[int, str]:
    hit = index.get(uri)
    if hit is None:  # Spark may spell a file's URI with escapes where Hadoop did not
        from urllib.parse import unquote
        hit = index.get(unquote(uri)) or next(v for k, v in index.items() if unquote(k) == unquote(uri))
    return hit


def _raw_batch(rows: list[RawRecord], fidx: list[int]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict({
        "file_index": pa.array(fidx, pa.int32()),
        "file": pa.array([r.source for r in rows], pa.string()),
        "line": pa.array([r.line for r in rows], pa.int64()),
        "value": pa.array([r.text for r in rows], pa.string()),
        "error": pa.array([r.error for r in rows], pa.string()),
        "column": pa.array([r.column for r in rows], pa.int32()),
        "notation": pa.array([r.notation for r in rows], pa.string()),
        "game_id": pa.array([r.game_id for r in rows], pa.string()),
    })


def _raws(batch: pa.RecordBatch) -> list[RawRecord]:
    cols = [batch.column(c).to_pylist() for c in ("file", "line", "value", "error", "column", "notation", "game_id")]
    return [RawRecord(f, ln, v, error=e, column=c, notation=n, game_id=g) for f, ln, v, e, c, n, g in zip(*cols)]


# ---- per game ---------------------------------------------------------------------------------


def _audit(records, overrides: dict[str, Any] | None):
    """Every record checked alone: its result as JSON, and what the checks across games need."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            raws, fidx = _raws(b), b.column("file_index").to_pylist()
            out: dict[str, list] = {k: [] for k in ("file_index", "line", "id", "status", "fingerprint",
                                                     "series_id", "series_seq", "facts", "result")}
            for raw, i in zip(raws, fidx):
                res = check_record(raw, overrides, fast=True, keep=False)
                series = res.series if res.status != "invalid" else None
                for k, v in (("file_index", i), ("line", raw.line), ("id", res.id), ("status", res.status),
                             ("fingerprint", res.fingerprint), ("series_id", series[0] if series else None),
                             ("series_seq", series[1] if series else None),
                             ("facts", json.dumps(series_facts(res)) if series else None),
                             ("result", json.dumps(res.to_dict(), ensure_ascii=False))):
                    out[k].append(v)
            yield pa.RecordBatch.from_pydict(out, schema=_arrow_schema(_AUDIT))

    return records.mapInArrow(run, _AUDIT)


def _arrow_schema(schema: StructType) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema
    return to_arrow_schema(schema)


def _successions(games):
    """The series checks' findings, by record, among the games given (the caller leaves repeats out, as
    `audit.CrossChecks`): SERIES_SEQ_SHARED on each game after the first at one (series, seq),
    SERIES_GAP on the games after places missing, and DEALER_SUCCESSION between two places held by
    exactly one game each. A game may have two (a place shared after a gap)."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window
    series = games.where(F.col("facts").isNotNull())
    place = Window.partitionBy("series_id", "series_seq")
    in_order = place.orderBy("file_index", "line")
    counted = series.withColumn("n", F.count("*").over(place))
    alone = counted.where("n = 1").drop("n")
    held = F.to_json(F.struct(F.first("id").over(in_order).alias("id"),
                              F.first(F.get_json_object("result", "$.source")).over(in_order).alias("source")))
    nothing, no_place = F.lit(None).cast(StringType()), F.lit(None).cast(LongType())
    shared = (counted.where("n > 1").withColumn("rank", F.row_number().over(in_order)).withColumn("first", held)
              .where("rank > 1").select("file_index", "line", "facts", nothing.alias("prev_facts"), "first",
                                        no_place.alias("before")))
    below = Window.partitionBy("series_id").orderBy("series_seq").rowsBetween(Window.unboundedPreceding, -1)
    gaps = (series.select("series_id", "series_seq").distinct().withColumn("before", F.max("series_seq").over(below))
            .where("before < series_seq - 1"))
    gapped = series.join(gaps, ["series_id", "series_seq"]).select("file_index", "line", "facts",
                                                                    nothing.alias("prev_facts"), nothing.alias("first"),
                                                                    "before")
    prev = alone.select(F.col("series_id"), (F.col("series_seq") + 1).alias("series_seq"),
                        F.col("facts").alias("prev_facts"))
    pairs = (alone.join(prev, ["series_id", "series_seq"])
             .select("file_index", "line", "facts", "prev_facts", nothing.alias("first"), no_place.alias("before")))

    def check(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            out: dict[str, list] = {"file_index": [], "line": [], "finding": []}
            for i, ln, cur, prv, first, before in zip(*(b.column(c).to_pylist() for c in (
                    "file_index", "line", "facts", "prev_facts", "first", "before"))):
                f = _series_finding(json.loads(cur), prv and json.loads(prv), first and json.loads(first), before)
                if f is not None:
                    out["file_index"].append(i)
                    out["line"].append(ln)
                    out["finding"].append(json.dumps(f.to_dict(), ensure_ascii=False))
            yield pa.RecordBatch.from_pydict(out, schema=_arrow_schema(_FINDING))

    return pairs.unionByName(shared).unionByName(gapped).mapInArrow(check, _FINDING)


def _series_finding(cur: dict[str, Any], prev: dict[str, Any] | None, first: dict[str, Any] | None,
                    before: int | None):
    """A game's place shared with `first` (the game read there first), the places missing after
    `before` (the last place held below it), or its dealer against `prev`'s result."""
    series = tuple(cur["series"])
    if first is not None:
        return SeriesSeqShared(game=cur["id"], series=series, first_game=first["id"], first=first["source"])
    if before is not None:
        return SeriesGap(game=cur["id"], series=series, missing=(before + 1, series[1] - 1))
    return succession_finding(prev, cur)


# ---- validate ---------------------------------------------------------------------------------


def validate(records, overrides: dict[str, Any] | None = None):
    """Per-game results with the columns of `validate --json` (RESULTS; evidence as JSON text)."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window
    games = _with_contents(records, _audit(records, overrides).persist())  # read three times below: replay once
    by_id = Window.partitionBy("id").orderBy("file_index", "line")
    marked = (games
              .withColumn("rank", F.when(F.col("id").isNotNull(), F.row_number().over(by_id)))
              .withColumn("first_fp", F.when(F.col("id").isNotNull(), F.first("fingerprint").over(by_id)))
              .withColumn("first_content", F.when(F.col("id").isNotNull(), F.first("content").over(by_id)))
              .withColumn("first_at", F.when(F.col("id").isNotNull(),
                                             F.first(F.get_json_object("result", "$.source")).over(by_id))))
    # A repeat of an earlier id is not present for the series checks (docs/game.md §11).
    succ = (_successions(marked.where("status != 'invalid' AND (rank IS NULL OR rank = 1)"))
            .groupBy("file_index", "line").agg(F.collect_list("finding").alias("findings")))
    joined = marked.join(succ, ["file_index", "line"], "left")
    return joined.select(*_FINISH).mapInArrow(_finish_results, RESULTS)


_FINISH = ("rank", "fingerprint", "first_fp", "content", "first_content", "first_at", "findings", "result")


def _with_contents(records, games):
    """The games with `content`: for each record of an id read with more than one text, its
    digest (repeats.record_digest), which tells a record written another way from another record (as
    repeats.RecordsReadAgain does for `validate`); null for the others."""
    from pyspark.sql import functions as F
    texts = games.where(F.col("id").isNotNull()).groupBy("id").agg(F.countDistinct("fingerprint").alias("texts"))
    doubled = games.join(texts.where("texts > 1").select("id"), "id", "left_semi").select("file_index", "line")
    if doubled.limit(1).count() == 0:  # the usual case: no id is read with two texts
        return games.withColumn("content", F.lit(None).cast(BinaryType()))

    def hashed(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            values = b.column("value").to_pylist()
            yield pa.RecordBatch.from_pydict({
                "file_index": b.column("file_index"), "line": b.column("line"),
                "content": [None if v is None else record_digest(v) for v in values]}, schema=_arrow_schema(_CONTENT))

    contents = (records.join(doubled, ["file_index", "line"], "left_semi")
                .select("file_index", "line", "value").mapInArrow(hashed, _CONTENT))
    return games.join(contents, ["file_index", "line"], "left").persist()  # read three times, as games is


def _finish_results(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    schema = _arrow_schema(RESULTS)
    for b in batches:
        rows = []
        for rank, fp, first_fp, content, first_content, first_at, succ, result in zip(
                *(b.column(c).to_pylist() for c in _FINISH)):
            data = json.loads(result)
            if rank is not None and rank > 1:  # a repeat: its DUPLICATE_GAME is its only finding
                same = fp is not None and first_fp is not None and fp == first_fp
                alike = True if same else None if None in (content, first_content) else content == first_content
                data["violations"] = [duplicate_finding(data["id"], first_at, same, alike).to_dict()]
            elif succ:  # in the registry's order, as audit.CrossChecks adds them
                data["violations"] += sorted(map(json.loads, succ), key=lambda v: _CODE_ORDER[v["code"]])
            rows.append(_result_row(data))
        yield pa.RecordBatch.from_pylist(rows, schema=schema)


def _result_row(data: dict[str, Any]) -> dict[str, Any]:
    for v in data["violations"]:
        v["evidence"] = json.dumps(v["evidence"], ensure_ascii=False)
    for k in ("deciding_tricks", "net"):
        if data[k] is not None:
            data[k] = list(data[k].items())
    return data


# ---- load -------------------------------------------------------------------------------------


def archive_schemas(analyze: int | None = None) -> dict[str, Any]:
    """The Spark schema of every archive table (the analysis tables with `analyze`), from the archive itself."""
    from pyspark.sql.pandas.types import from_arrow_schema
    from . import archive
    return {name: from_arrow_schema(t.schema) for name, t in archive.archive_rows([], analyze).items()}


def load(records, overrides: dict[str, Any] | None = None, analyze: int | None = None) -> dict[str, Any]:
    """The archive's tables (as `foreman load` then `export --parquet` would write them), as DataFrames.

    As `load` does: invalid records are left out, and so is every record the audit marks as a
    repeat (DUPLICATE_GAME: its id was read before, even in an unreadable record); dealer
    succession is judged as `validate` judges it (a repeat is not present for it). With `analyze`
    (a budget in nodes a search, as `load --analyze`), each game's deals are analysed where the
    game is flattened, into play_costs and deal_accuracy.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window
    games = _audit(records, overrides).persist()
    by_id = Window.partitionBy("id").orderBy("file_index", "line")
    kept = (games.withColumn("rank", F.when(F.col("id").isNotNull(), F.row_number().over(by_id)))
            .where("status != 'invalid' AND rank = 1").drop("rank"))
    kept_records = records.join(kept.select("file_index", "line"), ["file_index", "line"], "left_semi")
    tables = _tables(kept_records, overrides, analyze)
    late = _successions(kept).join(kept.select("file_index", "line", "id"), ["file_index", "line"])
    return _add_late(tables, late)


def _tables(records, overrides: dict[str, Any] | None, analyze: int | None) -> dict[str, Any]:
    from . import archive
    schemas = archive_schemas(analyze)

    def flatten(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            results = [check_record(raw, overrides, fast=analyze is None) for raw in _raws(b)]
            for name, t in archive.archive_rows(results, analyze).items():
                sink = io.BytesIO()
                with pa.ipc.new_stream(sink, t.schema) as w:
                    w.write_table(t)
                yield pa.RecordBatch.from_pydict({"name": [name], "ipc": [sink.getvalue()]})

    blobs = records.mapInArrow(flatten, _BLOBS)
    blobs = blobs.persist()

    def unpack(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            for blob in b.column("ipc").to_pylist():
                yield from pa.ipc.open_stream(blob)

    return {name: blobs.where(blobs.name == name).select("ipc").mapInArrow(unpack, schema)
            for name, schema in schemas.items()}


def _add_late(tables: dict[str, Any], late) -> dict[str, Any]:
    """The series checks' findings into `findings`, and what a breach among them changes in `games` and `payouts`."""
    from pyspark.sql import functions as F
    from . import archive
    findings_schema = tables["findings"].schema

    def rows(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        arrow = _arrow_schema(findings_schema)
        for b in batches:
            out = []
            for gid, text in zip(b.column("id").to_pylist(), b.column("finding").to_pylist()):
                out.append(dict(zip(arrow.names, archive.finding_row(gid, json.loads(text)))))
            yield pa.RecordBatch.from_pylist(out, schema=arrow)

    late = late.persist()
    # A warning (a series place shared or missing) is no breach and disputes nothing.
    ids = late.where(F.get_json_object("finding", "$.severity") == ERROR).select(F.col("id").alias("_late")).distinct()
    out = dict(tables)
    out["findings"] = tables["findings"].unionByName(late.select("id", "finding").mapInArrow(rows, findings_schema))
    games = tables["games"]
    out["games"] = (games.join(ids, games.id == ids._late, "left")
                    .withColumn("breaches", F.col("breaches") + F.when(F.col("_late").isNotNull(), 1).otherwise(0))
                    .select(*games.columns))
    payouts = tables["payouts"]
    out["payouts"] = (payouts.join(ids, payouts.game_id == ids._late, "left")
                      .withColumn("disputed", F.col("disputed") | F.col("_late").isNotNull())
                      .select(*payouts.columns))
    return out


# ---- the job ----------------------------------------------------------------------------------

_JOB_HINT = ("Spark's log above says more; a damaged .jsonl.gz stops a job, and --whole-files reads it as foreman "
             "does: one error for the file")

USAGE = """usage: spark-submit foreman_cli/spark_submit.py validate|load INPUT... OUTPUT [--whole-files] [--rule KEY=VALUE]
           [--analyze NODES]
       python -m foreman_cli.spark [--master local[2]] validate|load INPUT... OUTPUT

validate writes OUTPUT as Parquet, one row a game (the columns of `foreman validate --json`);
load writes OUTPUT/<table>/ as Parquet, the tables of `foreman export --parquet`; with
--analyze NODES (load only: a search's budget, as `foreman load --analyze --budget NODES`) also
play_costs and deal_accuracy."""


def main(argv: list[str] | None = None) -> int:
    """Run `validate` or `load` as a Spark job; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    master = _option(args, "--master")
    whole = "--whole-files" in args
    args = [a for a in args if a != "--whole-files"]
    items = []
    while (rule := _option(args, "--rule")) is not None:
        items.append(rule)
    budget = _option(args, "--analyze")
    if len(args) < 3 or args[0] not in ("validate", "load") or not _budget_ok(budget, args[0]):
        print(USAGE, file=sys.stderr)
        return 2
    from .errors import ForemanError
    from .rules import parse_overrides
    try:
        rules = parse_overrides(items) if items else None  # the names and values checked as the CLI does
    except ForemanError as e:
        from . import render
        render.error(e.message)  # the CLI's hint names foreman's --help, not this job's
        return e.exit_code
    command, inputs, output = args[0], args[1:-1], args[-1]
    spark = session(master)
    try:
        return run_job(spark, command, inputs, output, rules, None if budget is None else int(budget), whole)
    finally:
        spark.stop()


def run_job(spark, command: str, inputs: list[str], output: str, overrides: dict[str, Any] | None = None,
            analyze: int | None = None, whole_files: bool = False) -> int:
    """Write `validate`'s or `load`'s Parquet for the inputs with a session of the caller's; return the
    exit status. A job Spark stops (a damaged `.jsonl.gz`, an output it cannot write) is one line on
    stderr, with Spark's reason, not a traceback."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException
    try:
        frame = records_frame(spark, inputs, whole_files=whole_files)
        if command == "validate":
            validate(frame, overrides).write.mode("overwrite").parquet(output)
        else:
            for name, df in load(frame, overrides, analyze).items():
                df.write.mode("overwrite").parquet(os.path.join(output, name))
    except (PySparkException, Py4JError) as e:
        from . import render
        render.error(f"the Spark job stopped: {_reason(e)}", _JOB_HINT)
        return 2
    return 0


def _reason(error: Exception) -> str:
    """Spark's reason in one line: the Java error's message and, after it, its first cause's."""
    said, cause = [], getattr(error, "java_exception", None)
    try:
        while cause is not None and len(said) < 2:
            said.append(" ".join(str(cause.getMessage() or cause.getClass().getName()).split()))
            cause = cause.getCause()
    except Exception:  # noqa: BLE001 - the JVM itself may be gone; Python's text is then all there is
        pass
    said = said or [next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)]
    return said[0] + "".join(f" ({more})" for more in said[1:])


def session(master: str | None = None):
    """A SparkSession for foreman's jobs (in local mode the workers run this Python)."""
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName("foreman")
    if master:
        builder = builder.master(master)
    local = (master or "").startswith("local")
    if local:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (builder.config("spark.sql.execution.arrow.maxRecordsPerBatch", "1000")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.ui.showConsoleProgress", "false")
             # Parquet timestamps marked as UTC instants, as DuckDB's export writes them.
             .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
             .getOrCreate())
    if local and not spark.sparkContext.getConf().contains("spark.sql.shuffle.partitions"):
        # Spark's 200 shuffle partitions suit a cluster; on one machine each is a Python task of a few games.
        spark.conf.set("spark.sql.shuffle.partitions", str(spark.sparkContext.defaultParallelism))
    return spark


def _budget_ok(budget: str | None, command: str) -> bool:
    """--analyze belongs to load and takes a whole number of nodes."""
    return budget is None or (command == "load" and budget.isdigit())


def _option(args: list[str], name: str) -> str | None:
    if name in args:
        at = args.index(name)
        if at + 1 < len(args):
            value = args[at + 1]
            del args[at:at + 2]
            return value
    return None


if __name__ == "__main__":
    sys.exit(main())
