"""The season's views: ratings as a table, JSON or CSV."""

from __future__ import annotations

from math import exp
from typing import IO, Any

from .archive.sql import QueryResult
from .ratings import PROVISIONAL_GAMES, Ratings
from .records import name_clashes
from .render import console, name_clash, query_csv, query_table, schema
from .words import plural

RATING_COLUMNS = ["rank", "player", "rating", "mu", "sigma", "games", "wins", "provisional"]


def _rows(r: Ratings) -> list[tuple[Any, ...]]:
    return [(i, p.player, round(p.rating, 2), round(p.mu, 2), round(p.sigma, 2), p.games, p.wins, p.provisional)
            for i, p in enumerate(r.players, 1)]


def ratings_view(r: Ratings, season: str | None = None, out: IO[str] | None = None) -> None:
    """The ratings, best first, and what they rest on."""
    con = console(out)
    if not r.players:
        where = f"in the season {season}" if season else "in the archive"
        con.print(f"No won game to rate {where}: only won games are rated (an unfinished game ranks nobody); "
                  "foreman load PATH adds games.")
        return
    rows = [(*row[:-1], "yes" if row[-1] else "") for row in _rows(r)]
    query_table(QueryResult(RATING_COLUMNS, iter(rows)), con=con)
    con.print()
    con.print(f"{plural(r.games, 'won game')} rated in the order played (OpenSkill, Plackett-Luce); rating = mu - 3 sigma; "
              f"provisional: fewer than {PROVISIONAL_GAMES} games.")
    if r.roles:
        terms = ", ".join(f"{p.player} {p.mu - 25:+.2f}" for p in r.roles)
        con.print(f"The role in the deciding deal is rated too (D dealer, L left, R right): {terms} against the start of 25.")
    for group in name_clashes(p.player for p in r.players):
        con.print(name_clash(group, "rated apart"))
    if r.log_loss is not None:
        con.print(f"Before each game the model gave its winner a chance of {exp(-r.log_loss):.1%} on average "
                  "(geometric mean; 33.3% by chance alone).")


def ratings_json(r: Ratings, season: tuple[str | None, str | None], out: IO[str] | None = None) -> None:
    schema({"games": r.games, "season": {"from": season[0], "to": season[1]}, "role_term": bool(r.roles),
            "log_loss": None if r.log_loss is None else round(r.log_loss, 6),
            "players": [dict(zip(RATING_COLUMNS, row)) for row in _rows(r)],
            "roles": [{"role": p.player, "mu": round(p.mu, 4), "sigma": round(p.sigma, 4)} for p in r.roles],
            "name_clashes": name_clashes(p.player for p in r.players)}, out)


def ratings_csv(r: Ratings, out: IO[str] | None = None) -> None:
    query_csv(QueryResult(RATING_COLUMNS, _rows(r)), out)


def lesson_words(x) -> list[str]:
    """A position to learn from, in lines: where, his hand, the trick so far, his card against the best."""
    from .cards import names
    P = x.players
    so_far = ", ".join(f"{P[s]} {names([c])[0]}" for s, c in x.trick_so_far) or f"{P[x.seat]} to lead"
    best = " ".join(names(x.best)) or "?"
    others = ", ".join(f"{P[s]} {' '.join(names(cards))}" for s, cards in x.others)
    return [f"{x.game_id}, deal {x.deal}, trick {x.trick}: {P[x.seat]} held {' '.join(names(x.hand))}",
            f"  the others held: {others}",
            f"  the trick so far: {so_far}",
            f"  played {names([x.played])[0]}: sure of {plural(x.made, 'trick')} after it; "
            f"{best} {'would each have kept' if len(x.best) > 1 else 'would have kept'} {x.sure_before} (cost {x.cost})"]


def player_view(r, out: IO[str] | None = None) -> None:
    """`foreman player NAME` in the terminal: the same content as the HTML page."""
    con = console(out)
    con.print(f"{r.name}: {plural(r.games, 'game')}, {plural(r.wins, 'win')}")
    con.print()
    if r.totals is None:
        con.print(f"Luck and skill: no deal of {r.name}'s was wholly analysed (foreman load --analyze costs every card).")
    else:
        t = r.totals
        con.print(f"Luck and skill over {plural(t.deals, 'wholly analysed deal')}: {t.against_quota:+d} against quota "
                  f"= luck {t.luck:+d} + skill {t.skill:+d} + gifts {t.gifts:+d}"
                  + (f" + claims {t.claims:+d}" if t.claims else ""))
        con.print(f"Luck against the field (par above the archive's mean for the same role): {t.vs_field / t.deals:+.2f} a deal; "
                  "luck itself is below zero for everyone, par being what a player was sure of against perfect play")
        rows = [(p.period, p.deals, p.against_quota, p.luck, p.skill, p.gifts, p.claims) for p in r.periods]
        query_table(QueryResult(["period", "deals", "against quota", "luck", "skill", "gifts", "claims"], iter(rows)),
                    con=con)
    con.print()
    if r.rating:
        first, last = r.rating[0], r.rating[-1]
        con.print(f"Rating (mu - 3 sigma) over {plural(len(r.rating), 'won game')}: {first.mu - 3 * first.sigma:.2f} after "
                  f"the first, {last.mu - 3 * last.sigma:.2f} now (mu {last.mu:.2f}, sigma {last.sigma:.2f})")
        con.print()
    for title, res in (("Accuracy by role (D dealer, L left, R right)", r.by_role),
                       ("Accuracy by trick of the deal", r.by_trick), ("Head to head", r.head_to_head)):
        if res.rows:
            query_table(QueryResult(res.columns, iter(res.rows)), title, con=con, people=True)
            con.print()
    if r.lessons:
        con.print(f"Positions to learn from ({r.name}'s costliest cards):")
        for x in r.lessons:
            for line in lesson_words(x):
                con.print(line, soft_wrap=True)
