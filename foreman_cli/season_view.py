"""The season's views: ratings as a table, JSON or CSV."""

from __future__ import annotations

from math import exp
from typing import IO, Any

from .archive.sql import QueryResult
from .ratings import PROVISIONAL_GAMES, Ratings
from .render import console, query_csv, query_table, schema
from .words import plural

RATING_COLUMNS = ["rank", "player", "rating", "mu", "sigma", "games", "wins", "provisional"]


def _rows(r: Ratings) -> list[tuple[Any, ...]]:
    return [(i, p.player, round(p.rating, 2), round(p.mu, 2), round(p.sigma, 2), p.games, p.wins, p.provisional)
            for i, p in enumerate(r.players, 1)]


def ratings_view(r: Ratings, out: IO[str] | None = None) -> None:
    """The ratings, best first, and what they rest on."""
    con = console(out)
    if not r.players:
        con.print("No won games to rate (in that season): foreman load PATH adds games.")
        return
    rows = [(*row[:-1], "yes" if row[-1] else "") for row in _rows(r)]
    query_table(QueryResult(RATING_COLUMNS, iter(rows)), con=con)
    con.print()
    con.print(f"{plural(r.games, 'won game')} rated in the order played (OpenSkill, Plackett-Luce); rating = mu - 3 sigma; "
              f"provisional: fewer than {PROVISIONAL_GAMES} games.")
    if r.roles:
        terms = ", ".join(f"{p.player} {p.mu - 25:+.2f}" for p in r.roles)
        con.print(f"The role in the deciding deal is rated too (D dealer, L left, R right): {terms} against the start of 25.")
    if r.log_loss is not None:
        con.print(f"Before each game the model gave its winner a chance of {exp(-r.log_loss):.1%} on average "
                  "(geometric mean; 33.3% by chance alone).")


def ratings_json(r: Ratings, season: tuple[str | None, str | None], out: IO[str] | None = None) -> None:
    schema({"games": r.games, "season": {"from": season[0], "to": season[1]}, "role_term": bool(r.roles),
            "log_loss": None if r.log_loss is None else round(r.log_loss, 6),
            "players": [dict(zip(RATING_COLUMNS, row)) for row in _rows(r)],
            "roles": [{"role": p.player, "mu": round(p.mu, 4), "sigma": round(p.sigma, 4)} for p in r.roles]}, out)


def ratings_csv(r: Ratings, out: IO[str] | None = None) -> None:
    query_csv(QueryResult(RATING_COLUMNS, _rows(r)), out)
