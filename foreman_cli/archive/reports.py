"""The ready-made reports over an archive: per-player statistics and dealt hands."""

from __future__ import annotations

from dataclasses import dataclass, replace

import duckdb

from ..errors import UsageError, DatabaseError
from .sql import QueryResult, read_archive

@dataclass
class Stats:
    """The statistics report: per player, per role, findings, money, head to head."""

    players: QueryResult
    roles: QueryResult
    findings: QueryResult
    money: QueryResult
    head_to_head: QueryResult
    accuracy: QueryResult  # from `load --analyze`; empty otherwise


def stats(path: str, player: str | None = None) -> Stats:
    """The ready-made reports, from the views documented in docs/queries.md (foreman's own)."""
    con = read_archive(path)
    where = "WHERE player = $p" if player else ""
    params = {"p": player} if player else {}

    def q(sql: str) -> QueryResult:
        return result_of(con, sql, params)

    try:
        if player is not None:
            require_player(con, player, f"--player {player!r}: no such player in {path}")
        return Stats(
            players=q(f"SELECT * FROM player_summary {where} ORDER BY wins DESC, player"),
            roles=q(f"SELECT * FROM player_roles {where} ORDER BY player, role"),
            findings=q(f"SELECT * FROM player_findings {where} ORDER BY player, findings DESC, code"),
            money=q(f"SELECT * FROM player_money {where} ORDER BY currency, net DESC, player"),
            head_to_head=q(f"SELECT * FROM head_to_head {where} ORDER BY player, opponent"),
            accuracy=q(f"SELECT * FROM player_accuracy {where} ORDER BY player, role"),
        )
    except duckdb.CatalogException as e:
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    finally:
        con.close()


def result_of(con: duckdb.DuckDBPyConnection, sql: str, params: dict) -> QueryResult:
    """A query's columns and all its rows."""
    cur = con.execute(sql, params)
    return QueryResult([d[0] for d in cur.description], cur.fetchall())


def require_player(con: duckdb.DuckDBPyConnection, name: str, message: str) -> None:
    """Refuse a name the archive does not hold with `message`, naming the players it does hold."""
    if con.execute("SELECT 1 FROM game_players WHERE player = $p LIMIT 1", {"p": name}).fetchone():
        return
    known = [r[0] for r in con.execute("SELECT DISTINCT player FROM game_players ORDER BY player").fetchall()]
    raise UsageError(message, hint=f"known: {', '.join(known[:30])}{' ...' if len(known) > 30 else ''}"
                     if known else "the archive holds no games yet")


def dealt_hands(path: str):
    """Each stored deal as dealt (fairness.Dealt), in game and deal order."""
    from ..cards import CARD_OF
    from ..fairness import Dealt
    con = read_archive(path)
    try:
        cur = con.execute("""
            SELECT d.game_id, d.deal, g.players, list_position(g.players, d.dealer) - 1, d.kitty,
                   list(dp.hand ORDER BY dp.seat)
            FROM deals d JOIN games g ON g.id = d.game_id
            JOIN deal_players dp ON dp.game_id = d.game_id AND dp.deal = d.deal
            GROUP BY ALL ORDER BY d.game_id, d.deal""")
        while rows := cur.fetchmany(2000):
            for gid, n, players, dealer, kitty, hands in rows:
                if kitty is None or None in hands:  # a record of the play: the screen counts it apart
                    yield Dealt(gid, n, tuple(players), dealer, None, None)
                    continue
                yield Dealt(gid, n, tuple(players), dealer, tuple(tuple(CARD_OF[c] for c in h) for h in hands),
                            tuple(CARD_OF[c] for c in kitty))
    except duckdb.CatalogException as e:
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    finally:
        con.close()


def ratings(path: str, season: str | None = None, history_of: str | None = None):
    """`foreman ratings`: every player's rating from the won games of the archive (of a season,
    `FROM..TO`), in the order played (ratings.py); with `history_of`, that player's rating after
    each of his games too."""
    from ..ratings import rate_games, season_bounds
    start, end = season_bounds(season)
    rated = rate_games(won_games(path, start, end), history_of=history_of)
    if start is None and end is None:
        return rated
    return replace(rated, undated=_undated_won_games(path))


def _undated_won_games(path: str) -> int:
    """How many won games have no time, so that no season holds them."""
    con = read_archive(path)
    try:
        return con.execute("SELECT count(*) FROM games WHERE status = 'won' AND played_at IS NULL").fetchone()[0]
    except duckdb.CatalogException as e:
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    finally:
        con.close()


def won_games(path: str, start: str | None = None, end: str | None = None):
    """The archive's won games in the order played (ratings.WonGame): by time, then series and its
    order, then id; games without a time after the timed ones. `start`/`end` (ISO dates, inclusive)
    keep the games played in a season, and leave out those without a time."""
    from ..ratings import WonGame
    con = read_archive(path)
    season = ""
    if start is not None or end is not None:
        season = (" AND g.played_at IS NOT NULL"
                  + (" AND g.played_at >= $start::DATE" if start else "")
                  + (" AND g.played_at < $end::DATE + INTERVAL 1 DAY" if end else ""))
    params = {k: v for k, v in (("start", start), ("end", end)) if v}
    try:
        cur = con.execute(f"""
            SELECT g.id, strftime(g.played_at, '%Y-%m-%dT%H:%M:%SZ'), g.players,
                   list_position(g.players, g.winner) - 1, d.dealer_seat, d.won
            FROM games g JOIN deal_facts d ON d.game_id = g.id AND d.deal = g.deals_played
            WHERE g.status = 'won'{season}
            ORDER BY g.played_at NULLS LAST, g.series_id NULLS LAST, g.series_seq, g.id""", params)
        while rows := cur.fetchmany(5000):
            for gid, at, players, winner, dealer, won in rows:
                yield WonGame(gid, at, tuple(players), winner, dealer, tuple(won))
    except duckdb.CatalogException as e:
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    finally:
        con.close()
