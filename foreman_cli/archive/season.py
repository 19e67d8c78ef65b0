"""The archive's rows behind one player's season report (foreman player, foreman drill)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from ..errors import DatabaseError
from .reports import require_player, result_of
from .sql import QueryResult, read_archive


@dataclass(frozen=True)
class PlayerRows:
    """What the archive holds of one player, as rows the report is made from."""

    games: int
    wins: int
    deals: list[tuple]  # (day, month, par, cost, gifts, claim, luck, tricks, quota, par above his role's mean)
    by_role: QueryResult  # role, cards, cost, accuracy
    by_trick: QueryResult  # trick, cards, cost, accuracy
    head_to_head: QueryResult  # opponent, games, wins, losses
    costly: list[tuple]  # (game_id, deal, trick, card, sure_before, best, cost, raw): his costliest cards


def player_rows(path: str, name: str, costly: int = 10) -> PlayerRows:
    """The rows of `name`'s report; a name the archive does not hold is a usage error naming who it holds."""
    con = read_archive(path)
    params = {"p": name}
    try:
        require_player(con, name, f"no player {name!r} in {path}")
        games, wins = con.execute("SELECT count(*), count(*) FILTER (WHERE won) FROM player_games WHERE player = $p",
                                  params).fetchone()
        deals = con.execute("""
            WITH field AS (
                SELECT a.*, dp.tricks, dp.quota, a.par - avg(a.par) OVER (PARTITION BY dp.role) AS above_role
                FROM deal_accuracy a JOIN deal_players dp USING (game_id, deal, player) WHERE a.par IS NOT NULL)
            SELECT strftime(g.played_at, '%Y-%m-%d'), strftime(g.played_at, '%Y-%m'), f.par, f.cost, f.gifts,
                   f.claim, f.luck, f.tricks, f.quota, f.above_role
            FROM field f JOIN games g ON g.id = f.game_id
            WHERE f.player = $p ORDER BY g.played_at NULLS LAST, f.game_id, f.deal""", params).fetchall()
        rows = PlayerRows(
            games, wins, deals,
            result_of(con, """SELECT dp.role, count(*) AS cards, sum(c.cost) AS cost,
                                   round(avg(CASE WHEN c.cost = 0 THEN 1 ELSE 0 END), 3) AS accuracy
                            FROM play_costs c JOIN deal_players dp USING (game_id, deal, player)
                            WHERE c.player = $p AND c.cost IS NOT NULL GROUP BY dp.role ORDER BY dp.role""", params),
            result_of(con, """SELECT trick, count(*) AS cards, sum(cost) AS cost,
                                   round(avg(CASE WHEN cost = 0 THEN 1 ELSE 0 END), 3) AS accuracy
                            FROM play_costs WHERE player = $p AND cost IS NOT NULL GROUP BY trick ORDER BY trick""",
                      params),
            result_of(con, """SELECT opponent, games, wins, losses FROM head_to_head WHERE player = $p
                            ORDER BY games DESC, opponent""", params),
            con.execute("""
                SELECT c.game_id, c.deal, c.trick, c.card, c.sure_before, c.best, c.cost, g.raw
                FROM play_costs c JOIN games g ON g.id = c.game_id
                WHERE c.player = $p AND c.cost > 0
                ORDER BY c.cost DESC, g.played_at NULLS LAST, c.game_id, c.deal, c.trick LIMIT $n""",
                        {**params, "n": costly}).fetchall())
        return rows
    except duckdb.CatalogException as e:
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    finally:
        con.close()

