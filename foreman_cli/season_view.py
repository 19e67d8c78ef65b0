"""The season's views: ratings as a table, JSON or CSV."""

from __future__ import annotations

from math import exp
from typing import IO, Any

from .archive.sql import QueryResult
from .ratings import PROVISIONAL_GAMES, Ratings
from .records import name_clashes
from .render import console, name_clash, query_csv, query_table, schema
from .words import head_to_head_title, plural, signed

RATING_COLUMNS = ["rank", "player", "rating", "mu", "sigma", "games", "wins", "provisional"]


def _rows(ratings: Ratings) -> list[tuple[Any, ...]]:
    return [(i, p.player, round(p.rating, 2), round(p.mu, 2), round(p.sigma, 2), p.games, p.wins, p.provisional)
            for i, p in enumerate(ratings.players, 1)]


def ratings_view(ratings: Ratings, season: str | None = None, out: IO[str] | None = None) -> None:
    """The ratings, best first, and what they rest on."""
    con = console(out)
    undated = (f"{plural(ratings.undated, 'won game')} {'has' if ratings.undated == 1 else 'have'} no time "
               "(played_at), so no season holds them; ratings without --season take them in")
    if not ratings.players:
        if ratings.undated:
            con.print(f"No won game to rate in the season {season}: {undated}.")
        else:
            where = f"in the season {season}" if season else "in the archive"
            con.print(f"No won game to rate {where}: only won games are rated (an unfinished game ranks nobody); "
                      "foreman load PATH adds games.")
        return
    rows = [(*row[:-1], "yes" if row[-1] else "") for row in _rows(ratings)]
    query_table(QueryResult(RATING_COLUMNS, iter(rows)), con=con, people=True)  # every figure to two places: 26.70, not 26.7
    con.print()
    con.print(f"{plural(ratings.games, 'won game')} rated in the order played (OpenSkill, Plackett-Luce); "
              f"rating = mu - 3 sigma; provisional: fewer than {PROVISIONAL_GAMES} games.")
    if ratings.roles:
        terms = ", ".join(f"{p.player} {signed(p.mu - 25)}" for p in ratings.roles)
        con.print(f"The role in the deciding deal is rated too (D dealer, L left, R right): {terms} "
                  "against the start of 25.")
    if ratings.undated:
        con.print(f"Left out: {undated}.")
    for group in name_clashes(p.player for p in ratings.players):
        con.print(name_clash(group, "rated apart"))
    if ratings.log_loss is not None:
        con.print(f"Before each game the model gave its winner a chance of {exp(-ratings.log_loss):.1%} on average "
                  "(geometric mean; 33.3% by chance alone).")


def ratings_json(ratings: Ratings, season: tuple[str | None, str | None], out: IO[str] | None = None) -> None:
    schema({"games": ratings.games, "season": {"from": season[0], "to": season[1]}, "undated_left_out": ratings.undated,
            "role_term": bool(ratings.roles),
            "log_loss": None if ratings.log_loss is None else round(ratings.log_loss, 6),
            "players": [dict(zip(RATING_COLUMNS, row)) for row in _rows(ratings)],
            "roles": [{"role": p.player, "mu": round(p.mu, 4), "sigma": round(p.sigma, 4)} for p in ratings.roles],
            "name_clashes": name_clashes(p.player for p in ratings.players)}, out)


def ratings_csv(ratings: Ratings, out: IO[str] | None = None) -> None:
    query_csv(QueryResult(RATING_COLUMNS, _rows(ratings)), out)


def position_words(lesson) -> list[str]:
    """A position to learn from as the player met it, in lines: where, his hand, the others' hands, the
    trick so far."""
    from .cards import names
    players = lesson.players
    mover = players[lesson.seat]
    so_far = ", ".join(f"{players[s]} {names([c])[0]}" for s, c in lesson.trick_so_far) or f"{mover} to lead"
    others = ", ".join(f"{players[s]} {' '.join(names(cards))}" for s, cards in lesson.others)
    return [f"{lesson.game_id}, deal {lesson.deal}, trick {lesson.trick}: {mover} held {' '.join(names(lesson.hand))}",
            f"  the others held: {others}",
            f"  the trick so far: {so_far}"]


def lesson_words(lesson) -> list[str]:
    """A position to learn from, in lines: the position, then his card against the best."""
    from .cards import names
    best = " ".join(names(lesson.best)) or "?"
    kept = "would each have kept" if len(lesson.best) > 1 else "would have kept"
    return [*position_words(lesson),
            f"  played {names([lesson.played])[0]}: sure of {plural(lesson.made, 'trick')} after it; "
            f"{best} {kept} {lesson.sure_before} (cost {lesson.cost})"]


def player_view(season, out: IO[str] | None = None) -> None:
    """`foreman player NAME` in the terminal: the same content as the HTML page."""
    con = console(out)
    con.print(f"{season.name}: {plural(season.games, 'game')}, {plural(season.wins, 'win')}")
    con.print()
    if season.totals is None:
        con.print(f"Luck and skill: no deal of {season.name}'s was wholly analysed "
                  "(foreman load --analyze costs every card).")
    else:
        totals = season.totals
        con.print(f"Luck and skill over {plural(totals.deals, 'wholly analysed deal')}: "
                  f"{totals.against_quota:+d} against quota "
                  f"= luck {totals.luck:+d} + skill {totals.skill:+d} + gifts {totals.gifts:+d}"
                  + (f" + claims {totals.claims:+d}" if totals.claims else ""))
        con.print("Luck against the field (par above the archive's mean for the same role): "
                  f"{signed(totals.vs_field / totals.deals)} a deal; "
                  "luck itself is below zero for everyone, par being what a player was sure of against perfect play")
        rows = [(p.period, p.deals, p.against_quota, p.luck, p.skill, p.gifts, p.claims) for p in season.periods]
        query_table(QueryResult(["period", "deals", "against quota", "luck", "skill", "gifts", "claims"], iter(rows)),
                    con=con)
    con.print()
    if season.rating:
        first, last = season.rating[0], season.rating[-1]
        # "won games" alone reads as the games the player won: these are the player's games that anyone won
        con.print(f"Rating (mu - 3 sigma) over {season.name}'s {plural(len(season.rating), 'game')} with a winner: "
                  f"{first.mu - 3 * first.sigma:.2f} after the first, "
                  f"{last.mu - 3 * last.sigma:.2f} now (mu {last.mu:.2f}, sigma {last.sigma:.2f})")
        con.print()
    for title, res in (("Accuracy by role (D dealer, L left, R right)", season.by_role),
                       ("Accuracy by trick of the deal", season.by_trick),
                       (head_to_head_title(season.name), season.head_to_head)):
        if res.rows:
            query_table(QueryResult(res.columns, iter(res.rows)), title, con=con, people=True)
            con.print()
    if season.lessons:
        con.print(f"Positions to learn from ({season.name}'s costliest cards):")
        for x in season.lessons:
            for line in lesson_words(x):
                con.print(line, soft_wrap=True)
