"""The season's commands (ratings): parse arguments, call one library function, hand it to a view."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .command import DbOpt, app, guarded
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

    OpenSkill's Plackett-Luce model: the winner first, the other two by their quota outcome in the
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
        season_view.ratings_view(result)
