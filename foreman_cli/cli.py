"""The `foreman` command line: parse arguments, call one library function, hand it to render."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from . import audit, records, render
from .command import (DbOpt, FromOpt, GameOpt, JobsOpt, PathArg, PathsArg, QuietOpt, RuleOpt, app, argument, guarded,
                      inputs, run_app, stdin_text, typed_text, version_text, worker_count)
from .errors import UsageError
from .findings import CODES, INJECTABLE
from .reader import DEFAULT_MAX_RECORD_BYTES, SUFFIXES
from .rules import HouseRules, parse_overrides

MAX_RECORD_LIMIT = 1 << 40  # a larger limit overflowed the reader's buffer sizes (a traceback)


def _write_text(path: str, text: str, inputs: list[str]) -> None:
    from .files import write_text_atomically
    write_text_atomically(path, text, inputs)


@app.command()
@guarded
def validate(
    paths: PathsArg,
    json_out: Annotated[bool, typer.Option("--json", help="JSON Lines on stdout, one object per game.")] = False,
    rule: RuleOpt = None,
    max_record_bytes: Annotated[int, typer.Option(
        min=1, max=MAX_RECORD_LIMIT, metavar="BYTES",
        help="A record longer than this is reported as RECORD_SYNTAX instead of read.")] = DEFAULT_MAX_RECORD_BYTES,
    jobs: JobsOpt = None,
    quiet: QuietOpt = False,
    from_: FromOpt = None,
) -> None:
    """Replay records through the rules and report every breach with its place and evidence.

    Example: foreman validate games.jsonl season/ --json

    Arguments: PATH... record files (.json, .jsonl, .json.gz, .jsonl.gz, .fmn), folders holding them, or - for standard input.

    Exit status: 0 when no game has a breach, 1 when one does, 2 when the command could not run.
    """
    paths = inputs(paths, from_)
    overrides = parse_overrides(rule)
    if json_out:
        results = audit.validation_lines(paths, overrides, max_record_bytes, jobs=worker_count(jobs))
    else:
        results = audit.audit_paths(paths, overrides, max_record_bytes, jobs=worker_count(jobs), keep=False)
    with render.WorkProgress("validating", "games", streams_to_terminal=True) as bar:
        results = bar.counted(results)
        summary = render.validation_json(results) if json_out else render.validation_human(results, quiet=quiet)
    if not summary.games and not summary.repeats:
        _no_game(paths)
    raise typer.Exit(1 if summary.has_errors else 0)


DEFAULT_BUDGET = 100_000_000  # nodes for one search: work, not time, so the answer is the same at any load


def _analysis_budget(analyze: bool, budget: int | None) -> int:
    """--budget belongs to --analyze: refused without it, its default with it."""
    if budget is not None and not analyze:
        raise UsageError("--budget needs --analyze (it is the work allowed to one search of the analysis)")
    return DEFAULT_BUDGET if budget is None else budget


def _no_game(paths: list[str]) -> None:
    """The one convention for an input that holds no game: a warning on stderr, and exit 0."""
    render.warning(f"no game was read from {' '.join(paths)}", f"give record files ({', '.join(SUFFIXES)}), "
                   "directories holding them, or - for standard input")


@app.command()
@guarded
def settle(
    paths: PathsArg,
    rule: RuleOpt = None,
    as_played: Annotated[bool, typer.Option(
        "--as-played", help="Count games with breaches as recorded (the output says so).")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object: games, balances, transfers, excluded.")] = False,
    csv_out: Annotated[bool, typer.Option("--csv", help="The transfers as CSV.")] = False,
    per_game: Annotated[bool, typer.Option(
        "--per-game", help="List every game, however many (above 50 the human view shows counts).")] = False,
    certificate: Annotated[Optional[str], typer.Option(
        "--certificate", metavar="FILE",
        help="Also write a receipt: each game's SHA-256 (RFC 8785 canonical JSON), the ledger, one hash over all.")] = None,
    from_: FromOpt = None,
) -> None:
    """Settle bets: payouts per game, balances per currency, and the fewest transfers.

    Example: foreman settle friday/ --certificate friday.cert.json

    Arguments: PATH... record files (.json, .jsonl, .json.gz, .jsonl.gz, .fmn), folders holding them, or - for standard input.

    Exit status: 0 when every game with a stake was counted, 1 when a game was left out as
    disputed or invalid or read again as another record, 2 when the command could not run.
    """
    paths = inputs(paths, from_)
    from . import ledger_view  # the views load only where they are shown
    if json_out and csv_out:
        raise UsageError("choose one of --json and --csv")
    overrides = parse_overrides(rule)
    # The certificate hashes each record's text; a plain settlement needs only the results.
    results = audit.audit_paths(paths, overrides, keep=certificate is not None)
    writer = ledger_view.SettlementJSON() if json_out else None
    on_line = writer.line if writer else (lambda line: None) if csv_out else None
    with render.WorkProgress("settling", "games", streams_to_terminal=writer is not None) as bar:
        results = bar.counted(results)
        if certificate is not None:
            from . import certificate as cert
            result, receipt = cert.settle_certified(results, overrides, as_played, version_text(), on_line)
        else:
            from . import settle as settlement
            result = settlement.settle(results, as_played=as_played, on_line=on_line)
    if certificate is not None:
        _write_text(certificate, render.canonical_json(receipt), paths)
    if writer:
        writer.finish(result)
    elif csv_out:
        ledger_view.transfers_csv(result)
    elif result.read:
        ledger_view.settlement(result, per_game=per_game)
    if not result.read and not result.repeats:
        _no_game(paths)
    raise typer.Exit(1 if result.left_out or result.conflicting else 0)


@app.command()
@guarded
def replay(
    path: PathArg,
    game: GameOpt = None,
    deal: Annotated[Optional[int], typer.Option(min=1, metavar="N", help="Show this deal only (with --trick: stop just before that trick).")] = None,
    trick: Annotated[Optional[int], typer.Option(min=1, metavar="T", help="Stop just before this trick and show the hands.")] = None,
    rule: RuleOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="The replay as a JSON list of events.")] = False,
    from_: FromOpt = None,
) -> None:
    """Show a game move by move: hands, passes with proof, tricks, findings at their place, result.

    Example: foreman replay games.jsonl --game g7 --deal 2 --trick 9

    Arguments: PATH a record file, a folder, or - for standard input.

    Exit status: 0 when the game has no breach, 1 when it has one or the input holds another record of it,
    2 when the command could not run.
    """
    path = inputs([path], from_)[0]
    from . import game_view  # the views load only where they are shown
    from . import trace as tracing
    trace = tracing.trace_game([path], game, parse_overrides(rule), deal, trick)
    if json_out:
        render.events_json(trace.events, trace.data.players, trace.doubts)
    else:
        game_view.replay_view(trace)
    raise typer.Exit(1 if trace.result.has_errors or trace.doubts else 0)


@app.command()
@guarded
def report(
    path: PathArg,
    output: Annotated[str, typer.Option("--output", "-o", metavar="FILE", help="Where to write the HTML page.")],
    game: GameOpt = None,
    rule: RuleOpt = None,
    analyze: Annotated[bool, typer.Option(
        "--analyze", help="Add each deal's chart of sure tricks, costly cards marked (foreman analyze).")] = False,
    budget: Annotated[Optional[int], typer.Option(
        min=0, metavar="NODES", help="Needs --analyze: positions one search may visit (default 100000000).")] = None,
    jobs: JobsOpt = None,
    from_: FromOpt = None,
) -> None:
    """Write one self-contained HTML page of a game's replay: for both sides of a dispute, printable on A4.

    Example: foreman report games.jsonl --game g7 -o dispute.html   (-o - writes it to stdout)

    Arguments: PATH a record file, a folder, or - for standard input.
    """
    path = inputs([path], from_)[0]
    from . import report as dispute
    from . import trace as tracing
    budget = _analysis_budget(analyze, budget)
    with render.WorkProgress("analysing", "deals") as bar:
        page = dispute.dispute_page(tracing.trace_game([path], game, parse_overrides(rule)), analyze, budget,
                                    on_deal=bar.advance, jobs=worker_count(jobs))
    if output == "-":
        render.utf8_stdout()  # the page says it is UTF-8
        sys.stdout.write(page)
        return
    _write_text(output, page, [path])
    render.wrote(output, len(page.encode("utf-8")))


@app.command()
@guarded
def analyze(
    path: PathArg,
    game: GameOpt = None,
    from_trick: Annotated[int, typer.Option(min=1, max=16, metavar="T", help="Analyse the cards from this trick on.")] = 1,
    deal: Annotated[Optional[int], typer.Option(min=1, metavar="N", help="Only this deal.")] = None,
    budget: Annotated[int, typer.Option(
        min=0, metavar="NODES", help="Positions one search may visit; a play not solved within them is shown as not "
        "solved, never guessed. Work, not time: the same answer on any machine.")] = DEFAULT_BUDGET,
    rule: RuleOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per game: each play's cost, the best cards, what was sure.")] = False,
    jobs: JobsOpt = None,
    from_: FromOpt = None,
) -> None:
    """Cost every card: what each player could be sure of before it, the best cards, accuracy, where it turned.

    Example: foreman analyze games.jsonl --game g7 --deal 2 --from-trick 9

    Arguments: PATH a record file, a folder, or - for standard input.

    Exit status: 0 when every game was analysed, 1 when one could not be replayed or was read again
    as another record, 2 when the command could not run.
    """
    path = inputs([path], from_)[0]
    from . import game_view  # the views load only where they are shown
    from . import analysis
    with render.WorkProgress("analysing", "deals", streams_to_terminal=True) as bar:
        items = analysis.analyze_results(audit.audit_paths([path], parse_overrides(rule)), game, deal, from_trick,
                                         budget, on_deal=bar.advance, jobs=worker_count(jobs))
        summary = (game_view.analysis_json if json_out else game_view.analysis_view)(items)
    if not summary.games:
        _no_game([path])
    raise typer.Exit(1 if summary.invalid or summary.repeats else 0)


@app.command()
@guarded
def verify(
    certificate: Annotated[str, argument("CERTIFICATE")],
    paths: PathsArg,
    from_: FromOpt = None,
) -> None:
    """Check a settlement certificate against the records: verified, or each game missing, added or changed.

    Example: foreman verify friday.cert.json friday/

    Arguments: CERTIFICATE a file written by settle --certificate; PATH... the records, as given to settle.

    Exit status: 0 when verified, 1 when anything differs or a game's two records differ, 2 when it could not run.
    """
    paths = inputs(paths, from_)
    from . import game_view  # the views load only where they are shown
    from . import certificate as cert
    try:
        with open(certificate, "rb") as f:
            raw = f.read(cert.MAX_BYTES + 1)
    except OSError as e:
        raise UsageError(f"{certificate}: {e.strerror or e}") from None
    if len(raw) > cert.MAX_BYTES:
        raise UsageError(f"{certificate}: not a certificate: larger than {cert.MAX_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{certificate}: not a certificate: not UTF-8 text (settle --certificate writes UTF-8)") from None
    verdict = cert.verify(cert.read(text, certificate), lambda overrides: audit.audit_paths(paths, overrides),
                          version_text())
    game_view.verdict(verdict)
    raise typer.Exit(0 if verdict.verified else 1)


@app.command()
@guarded
def fairness(
    paths: Annotated[Optional[list[str]], argument("PATH")] = None,
    db: Annotated[Optional[str], typer.Option("--db", metavar="FILE", help="Read the dealt hands from an archive.")] = None,
    alpha: Annotated[float, typer.Option(min=0.0, max=1.0, metavar="A", help="The significance level after correction.")] = 0.01,
    correction: Annotated[str, typer.Option(metavar="NAME", help="holm (family-wise) or bh (Benjamini-Hochberg, false discoveries).")] = "holm",
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object: every test with its p-value, adjusted.")] = False,
    html: Annotated[Optional[str], typer.Option("--html", metavar="FILE", help="Also write a page with the distributions drawn.")] = None,
    rule: RuleOpt = None,
    from_: FromOpt = None,
) -> None:
    """Is the deck stacked? Each player's dealt hands against chance, as dealer and not.

    Example: foreman fairness season/ --html fairness.html

    Arguments: PATH... record files or folders (or --db FILE instead).

    Exit status: 0 when no test is flagged, 1 when one is, 2 when the command could not run.
    """
    paths = inputs(paths, from_)
    from . import fairness as fair
    if correction not in fair.CORRECTIONS:
        raise UsageError(f"--correction {correction!r}: one of {', '.join(fair.CORRECTIONS)}")
    if bool(paths) == bool(db):
        raise UsageError("give record PATHs or --db FILE (one of the two)")
    unscreened = fair.Unscreened()  # an archive holds no invalid record and no repeat
    if db:
        from . import archive
        deals = archive.dealt_hands(archive.db_path(db))
    else:
        deals = fair.from_results(audit.audit_paths(paths, parse_overrides(rule), keep=True), unscreened)
    with render.WorkProgress("screening", "deals") as bar:
        result = fair.screen(bar.counted(deals), alpha, correction, unscreened)
    if result.empty:
        if db:
            render.warning(f"{db}: the archive holds no dealt hands", "load games first: foreman load PATH --db FILE")
        else:
            _no_game(paths)
    if html is not None:
        from . import fairness_page
        _write_text(html, fairness_page.page(result), paths or [])
    (render.schema if json_out else render.fairness_view)(result.to_dict() if json_out else result)
    raise typer.Exit(1 if result.flagged else 0)


@app.command()
@guarded
def load(
    paths: PathsArg,
    db: DbOpt = None,
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite a stored game whose id comes with new content.")] = False,
    rule: RuleOpt = None,
    batch: Annotated[int, typer.Option(min=1, metavar="N", help="Games per transaction: a load killed loses at most one batch, Ctrl-C none.")] = 8192,
    jobs: JobsOpt = None,
    analyze: Annotated[bool, typer.Option(
        "--analyze", help="Also cost every card of the games added, and of games stored before without it "
                          "(tables play_costs, deal_accuracy); slow.")] = False,
    budget: Annotated[Optional[int], typer.Option(
        min=0, metavar="NODES", help="Needs --analyze: positions one search may visit (default 100000000).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="What the load did as one JSON object.")] = False,
    quiet: QuietOpt = False,
    from_: FromOpt = None,
) -> None:
    """Load games into a DuckDB archive (idempotent; a game with the same id and new content is refused).

    Example: foreman load season/ --db club.duckdb   (PATH...: record files or folders, as validate reads them)

    Exit status: 0 when everything new was loaded, 1 when a record was invalid or in conflict.
    """
    paths = inputs(paths, from_)
    from . import archive  # duckdb and pyarrow load only for the commands that use them
    budget = _analysis_budget(analyze, budget)
    path = archive.db_path(db)
    with render.WorkProgress("loading", "games") as bar:
        report = archive.load_paths(paths, path, parse_overrides(rule), replace, batch, worker_count(jobs), progress=bar.advance,
                                  analyze=budget if analyze else None)
    if json_out:
        render.schema(report.to_dict(path))
    else:
        render.load_report(report, path, quiet=quiet)
    if not (report.added or report.unchanged or report.replaced or report.invalid or report.conflicts):
        _no_game(paths)
    raise typer.Exit(1 if report.conflicts or report.invalid else 0)


# SQL may begin with a comment ("-- ..."), which would otherwise be read as an option.
@app.command(context_settings={"ignore_unknown_options": True})
@guarded
def query(
    sql: Annotated[str, argument("SQL", text=True)],
    db: DbOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="JSON Lines, one object per row.")] = False,
    csv_out: Annotated[bool, typer.Option("--csv", help="CSV with a header.")] = False,
    timeout: Annotated[float, typer.Option(
        min=0.001, metavar="SECONDS",
        help="Stop a query that gives no row for this long (the table: that takes this long in all).")] = 60.0,
    limit: Annotated[int, typer.Option(
        min=0, metavar="N",
        help="The table shows at most N rows and says how many more (0: all, up to 100,000).")] = 50,
) -> None:
    """Run SQL on the archive (read-only: a write fails and changes nothing); "SHOW TABLES" lists the tables.

    --csv and --json stream every row as it comes, in constant memory.

    Example: foreman query "SELECT * FROM player_summary" --csv   (SQL - reads it from stdin)

    Arguments: SQL one SQL statement (- reads it from standard input); the archive is opened read-only.
    """
    from . import archive  # duckdb and pyarrow load only for the commands that use them
    if json_out and csv_out:
        raise UsageError("choose one of --json and --csv")
    if sql == "-":
        sql = stdin_text("the SQL")
    with archive.bounded_query_process(), \
            archive.open_query(archive.db_path(db), sql, timeout, whole=not (json_out or csv_out)) as res:
        if json_out or csv_out:
            (render.query_json if json_out else render.query_csv)(res)
        else:
            render.query_table(res, limit=limit)


STATS_TABLES = ("players", "roles", "findings", "money", "head_to_head", "accuracy")


@app.command()
@guarded
def stats(
    player: Annotated[Optional[str], typer.Option(
        metavar="NAME", callback=typed_text, help="Only this player.")] = None,
    db: DbOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    csv_out: Annotated[bool, typer.Option("--csv", help="One table (--table) as CSV with a header.")] = False,
    table: Annotated[str, typer.Option(
        metavar="NAME", help=f"The table --csv writes: {', '.join(STATS_TABLES)}.")] = "players",
) -> None:
    """Per player: games, wins, quotas by role, findings, money; and head to head.

    Example: foreman stats --csv --table money > money.csv   (--player alice: one player's rows)
    """
    from . import archive  # duckdb and pyarrow load only for the commands that use them
    if json_out and csv_out:
        raise UsageError("choose one of --json and --csv")
    if table not in STATS_TABLES:
        raise UsageError(f"no statistics table {table!r}", hint=f"one of {', '.join(STATS_TABLES)}")
    if table != "players" and not csv_out:
        raise UsageError(f"--table {table} needs --csv (the report and --json show every table)",
                         hint="see 'foreman stats --help'")
    st = archive.stats(archive.db_path(db), player)
    if csv_out:
        render.query_csv(getattr(st, table))
    else:
        (render.stats_json if json_out else render.stats_report)(st)


@app.command()
@guarded
def export(
    parquet: Annotated[str, typer.Option("--parquet", metavar="DIR", help="Write DIR/<table>/data.parquet.")],
    db: DbOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object: the folder and each table's rows.")] = False,
) -> None:
    """Export every table as a Parquet dataset, for DuckDB, Spark or Trino to read as it is.

    Example: foreman export --parquet archive-parquet/
    """
    from . import archive  # duckdb and pyarrow load only for the commands that use them
    rows = archive.export_parquet(archive.db_path(db), parquet)
    render.exported(parquet, rows, json_out)


def _names(listed: str | None) -> list[str] | None:
    """'alice, bob, carol' as three names: a name never begins or ends with a space."""
    return [name.strip() for name in listed.split(",")] if listed else None


@app.command()
@guarded
def generate(
    games: Annotated[int, typer.Option("--games", "-n", min=0, metavar="N", help="How many games.")] = 10,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed: the same seed gives the same games.")] = 1,
    inject: Annotated[Optional[str], typer.Option(
        metavar="CODE", help=f"Make one breach of this kind in each game: {', '.join(INJECTABLE)}.")] = None,
    rule: RuleOpt = None,
    max_deals: Annotated[int, typer.Option(metavar="N", help="Stop after this many deals (the game is then unfinished).")] = 20,
    stacked: Annotated[float, typer.Option(
        min=0.0, max=1.0, metavar="P",
        help="Chance that a deal is stacked, giving one player the 16 highest cards so games end sooner "
             "(0 to 1; default 0: every deal a fair shuffle).")] = 0.0,
    series_size: Annotated[int, typer.Option(
        min=0, metavar="N", help="Group games into series of this many, with dealer succession (0: no series).")] = 0,
    players: Annotated[Optional[str], typer.Option(
        metavar="A,B,C", callback=typed_text,
        help="The three players of every game, in seating order; more than three names are a club's "
             "regulars, three seated at random each game or series (default: drawn from a list).")] = None,
    weak: Annotated[Optional[str], typer.Option(
        "--weak", metavar="NAME", callback=typed_text,
        help="Make NAME a weak player: NAME plays a random legal card every time, where the "
             "others mostly play their highest.")] = None,
    stacked_by: Annotated[Optional[str], typer.Option(
        "--stacked-by", metavar="NAME", callback=typed_text,
        help="Make NAME (one of --players) a cheat: --stacked is then the chance that NAME's "
             "own deal gives NAME the 16 highest cards.")] = None,
    claims: Annotated[float, typer.Option(
        min=0.0, max=1.0, metavar="P",
        help="Chance that a deal ends with a claim once 6 tricks or fewer remain (0 to 1); the bots claim "
             "boldly, so many claims fail (refuted or doubtful) and some hold.")] = 0.0,
    play_only: Annotated[float, typer.Option(
        "--play-only", min=0.0, max=1.0, metavar="P",
        help="Share of deals written as the table saw them (foreman/1.2): no hands, kitty, passes or discards; "
             "half of them with the cards left in hand (0 to 1).")] = 0.0,
) -> None:
    """Write seeded games played by simple bots as JSON Lines on stdout: fair shuffles, legal play.

    Every deal is a fair shuffle unless --stacked or --stacked-by asks for stacked ones; every play
    is legal unless --inject asks for one breach per game. The same seed gives the same games.

    Example: foreman generate -n 1000 --seed 7 --inject REVOKE > revokes.jsonl
    """
    from . import generate as gen  # the bots load for this command only
    rules = HouseRules().with_overrides(parse_overrides(rule))
    out = sys.stdout
    for rec, _ in gen.generate(games, seed, inject.upper() if inject else None, rules, max_deals, stacked, series_size,
                               claims=claims, stacked_by=stacked_by, players=_names(players),
                               play_only=play_only, weak=weak):
        render.json_line(rec, out)


@app.command()
@guarded
def convert(
    paths: PathsArg,
    to: Annotated[Optional[str], typer.Option("--to", metavar="FORM", help=(
        "json (JSON Lines) or fmn (notation); with -o, by default the form its name calls for."))] = None,
    output: Annotated[Optional[str], typer.Option("--output", "-o", metavar="FILE",
                                                  help="Write here (whole or not at all) instead of stdout.")] = None,
    from_: FromOpt = None,
) -> None:
    """Convert records between JSON and .fmn notation, game by game; JSON and notation may be mixed.

    Example: foreman convert friday.fmn -o friday.jsonl   (or --to json, to standard output)

    Arguments: PATH... record files (.json, .jsonl, .json.gz, .jsonl.gz, .fmn) or folders. A game that
    cannot be read is named on stderr and left out (exit status 1).
    """
    paths = inputs(paths, from_)
    from .convert import output_form, repeats_said, write_converted
    from .files import write_atomically
    to = output_form(to, output)
    if output:
        problems, repeats = [], []

        def fill(temporary: str) -> None:
            with open(temporary, "w", encoding="utf-8") as f:
                found, again = write_converted(paths, to, f)
                problems.extend(found)
                repeats.extend(again)
        write_atomically(output, fill, paths)
    else:
        render.utf8_stdout()  # records, which foreman reads as UTF-8
        problems, repeats = write_converted(paths, to, sys.stdout)
    for c in problems:
        render.warning(f"{c.source}: {c.problem}", "it is left out of the conversion")
    if repeats:  # written as given: each may be its game written another way, or another record
        render.warning(repeats_said(repeats), "every command counts a game's first record; validate says "
                                              "whether the others agree with it")
    raise typer.Exit(1 if problems else 0)


@app.command()
@guarded
def record(path: PathArg) -> None:
    """Keep score at the table in a .fmn file: each trick checked as it is typed and on disk at once.

    Example: foreman record friday.fmn

    Arguments: PATH the notation file (created if new; an existing one is resumed where it stopped).
    At a terminal it prompts for each line (Enter takes what is due; `help` lists the lines and
    commands); otherwise it reads the lines from standard input, so `foreman record OUT.fmn <
    evening.fmn` writes the same records (exit status 1 when a line was refused).
    """
    from .record_session import run
    raise typer.Exit(run(path))


@app.command()
@guarded
def schema() -> None:
    """Print the JSON Schema of the record formats foreman/1, foreman/1.1 and foreman/1.2.

    Example: foreman schema > foreman.schema.json
    """
    render.schema(records.json_schema())


@app.command()
@guarded
def codes(
    code: Annotated[Optional[str], argument("CODE", text=True)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="The codes as a JSON list.")] = False,
) -> None:
    """Explain every finding code: the rule, the evidence shown, an example.

    Example: foreman codes CLAIM_REFUTED

    Arguments: CODE one code to explain (default: every code).
    """
    if code is not None and code.upper() not in CODES:
        raise UsageError(f"unknown code {code!r}; known: {', '.join(CODES)}")
    selected = [code.upper()] if code else list(CODES)
    if json_out:
        from .findings import code_dicts
        render.schema(code_dicts(selected))
    else:
        render.codes(selected)


from . import season_cli  # noqa: E402,F401  (registers ratings after the archive's commands, in help too)


def main() -> None:
    """Entry point of the `foreman` console script, once every command above is registered."""
    run_app()


if __name__ == "__main__":  # pragma: no cover
    main()
