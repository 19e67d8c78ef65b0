"""The season's commands (ratings): parse arguments, call one library function, hand it to a view."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .command import DbOpt, app, argument, guarded
from .errors import UsageError

SeasonOpt = Annotated[Optional[str], typer.Option(
    "--season", metavar="FROM..TO", help="Only games played from FROM to TO (dates, both included; either may be left out).")]


@app.command()
@guarded
def ratings(
    db: DbOpt = None,
    season: SeasonOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    csv_out: Annotated[bool, typer.Option("--csv", help="The table as CSV with a header.")] = False,
) -> None:
    """A rating per player from every won game in the archive, in the order played.

    OpenSkill's Plackett-Luce model: the winner first, the other two by their tricks in the
    deciding deal; the role each had in that deal is rated beside him. Ranked by mu - 3 sigma;
    provisional below 10 games. The same archive gives the same ratings.

    Example: foreman ratings --season 2026-01-01..2026-06-30
    """
    from . import archive, season_view  # duckdb and openskill load only for the commands that use them
    from .ratings import season_bounds
    if json_out and csv_out:
        raise UsageError("choose one of --json and --csv")
    result = archive.ratings(archive.db_path(db), season)
    if json_out:
        season_view.ratings_json(result, season_bounds(season))
    elif csv_out:
        season_view.ratings_csv(result)
    else:
        season_view.ratings_view(result, season)


@app.command()
@guarded
def player(
    name: Annotated[str, argument("NAME", text=True)],
    db: DbOpt = None,
    html: Annotated[Optional[str], typer.Option("--html", metavar="FILE", help="Also write the report as one self-contained HTML page.")] = None,
    lessons: Annotated[int, typer.Option(min=0, max=1000, metavar="N", help="How many positions to learn from.")] = 10,
) -> None:
    """One player's season: results against quota split into luck, skill and gifts, rating over
    time, accuracy by role and by trick, head to head, and the positions to learn from.

    Luck and skill need the deals analysed: foreman load --analyze.

    Example: foreman player alice --html alice.html

    Arguments: NAME the player, named as in the records.
    """
    from . import archive, season_view
    from .player import player_report
    report = player_report(archive.db_path(db), name, lessons)
    season_view.player_view(report)
    if html is not None:
        from .files import write_text_atomically
        from .player_page import page
        write_text_atomically(html, page(report))


@app.command()
@guarded
def drill(
    name: Annotated[str, argument("NAME", text=True)],
    db: DbOpt = None,
    positions: Annotated[int, typer.Option(min=1, max=1000, metavar="N", help="How many of the player's costliest positions.")] = 10,
) -> None:
    """Learn from your mistakes: your costliest positions one at a time; type the card you would
    play, hear whether it was among the best and what it costs, and see what was best.

    Reads the answers from standard input, so it can be scripted: a card (QH, 10S, TS), Enter to
    see the answer, q to stop. Needs the deals analysed: foreman load --analyze.

    Example: foreman drill alice

    Arguments: NAME the player whose positions to drill.
    """
    import io
    import sys
    from . import archive
    from .archive.season import player_rows
    from .drill import run_drill
    rows = player_rows(archive.db_path(db), name, positions).costly
    if not rows:
        raise UsageError(f"no costly card of {name!r} in the archive to drill",
                         hint="foreman load --analyze costs every card of the games it adds")
    # Answers are cards, read as UTF-8 whatever the locale: a stray byte is an answer that names no card.
    answers = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    run_drill(rows, (line.rstrip("\n") for line in answers), lambda text: print(text, flush=True))
