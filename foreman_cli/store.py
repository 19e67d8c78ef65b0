"""The DuckDB archive: schema, bulk idempotent loads from Arrow batches, read-only queries, Parquet export."""

from __future__ import annotations

import gc
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from . import money
from .cards import CANONICAL, RANK_OF, SUIT_OF, SUITS
from .errors import DatabaseError, OutputError
from .results import ROLE_NAMES, GameResult

DEFAULT_DB = "foreman.duckdb"
BATCH_GAMES = 2000
RANK_VALUE = tuple(r + 2 for r in RANK_OF)  # 2..14 (ace high)

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id VARCHAR PRIMARY KEY, content_hash VARCHAR NOT NULL, source VARCHAR, status VARCHAR NOT NULL,
    winner VARCHAR, deals_played INTEGER, players VARCHAR[], stake DECIMAL(38, 10), stake_text VARCHAR,
    currency VARCHAR, played_at TIMESTAMPTZ, series_id VARCHAR, series_seq INTEGER, quota VARCHAR,
    target INTEGER, rules JSON, breaches INTEGER, raw JSON, loaded_at TIMESTAMPTZ);
CREATE TABLE IF NOT EXISTS game_players (game_id VARCHAR, seat INTEGER, player VARCHAR);
CREATE TABLE IF NOT EXISTS deals (game_id VARCHAR, deal INTEGER, dealer VARCHAR, decided BOOLEAN,
    tricks_played INTEGER, kitty VARCHAR[], discards VARCHAR[]);
CREATE TABLE IF NOT EXISTS deal_players (game_id VARCHAR, deal INTEGER, player VARCHAR, seat INTEGER,
    role VARCHAR, quota INTEGER, tricks INTEGER, outcome INTEGER, made_quota BOOLEAN, hand VARCHAR[]);
CREATE TABLE IF NOT EXISTS passes (game_id VARCHAR, deal INTEGER, pass INTEGER, giver VARCHAR,
    receiver VARCHAR, card VARCHAR, returned VARCHAR);
CREATE TABLE IF NOT EXISTS tricks (game_id VARCHAR, deal INTEGER, trick INTEGER, leader VARCHAR,
    winner VARCHAR, led_suit VARCHAR, cards INTEGER);
CREATE TABLE IF NOT EXISTS plays (game_id VARCHAR, deal INTEGER, trick INTEGER, position INTEGER,
    player VARCHAR, card VARCHAR, suit VARCHAR, rank INTEGER, led_suit VARCHAR, followed BOOLEAN, won BOOLEAN);
CREATE TABLE IF NOT EXISTS findings (game_id VARCHAR, code VARCHAR, severity VARCHAR, deal INTEGER,
    trick INTEGER, pass INTEGER, player VARCHAR, card VARCHAR, message VARCHAR, evidence JSON);
CREATE TABLE IF NOT EXISTS payouts (game_id VARCHAR, player VARCHAR, net DECIMAL(38, 10), net_text VARCHAR,
    currency VARCHAR, short_of_quota BOOLEAN, winner BOOLEAN, disputed BOOLEAN);
"""

TABLES = ("games", "game_players", "deals", "deal_players", "passes", "tricks", "plays", "findings", "payouts")

VIEWS = """
CREATE OR REPLACE VIEW player_games AS
SELECT gp.player, g.id AS game_id, g.status, g.winner = gp.player AS won, g.deals_played, g.currency
FROM game_players gp JOIN games g ON g.id = gp.game_id WHERE g.status <> 'invalid';

CREATE OR REPLACE VIEW player_summary AS
SELECT player, count(*) AS games, count(*) FILTER (WHERE won) AS wins,
       round(count(*) FILTER (WHERE won) / count(*), 3) AS win_rate,
       count(*) FILTER (WHERE status = 'unfinished') AS unfinished,
       (SELECT count(*) FROM deal_players dp WHERE dp.player = pg.player) AS deals
FROM player_games pg GROUP BY player;

CREATE OR REPLACE VIEW player_roles AS
SELECT player, role, count(*) AS deals, round(avg(tricks), 2) AS mean_tricks,
       round(avg(CASE WHEN made_quota THEN 1 ELSE 0 END), 3) AS quota_made_rate,
       round(avg(outcome), 2) AS mean_outcome
FROM deal_players GROUP BY player, role;

CREATE OR REPLACE VIEW player_findings AS
SELECT player, code, count(*) AS findings FROM findings WHERE player IS NOT NULL GROUP BY player, code;

CREATE OR REPLACE VIEW player_money AS
SELECT player, currency, count(*) FILTER (WHERE NOT disputed) AS games, sum(net) FILTER (WHERE NOT disputed) AS net,
       count(*) FILTER (WHERE disputed) AS disputed_games, sum(net) AS net_as_played
FROM payouts GROUP BY player, currency;

CREATE OR REPLACE VIEW head_to_head AS
SELECT a.player AS player, b.player AS opponent, count(*) AS games,
       count(*) FILTER (WHERE g.winner = a.player) AS wins,
       count(*) FILTER (WHERE g.winner = b.player) AS losses
FROM game_players a JOIN game_players b ON a.game_id = b.game_id AND a.player <> b.player
JOIN games g ON g.id = a.game_id WHERE g.status <> 'invalid'
GROUP BY a.player, b.player;
"""

DECIMAL_TYPE = pa.decimal128(38, 10)


def db_path(path: str | None) -> str:
    """The database file: the option, else $FOREMAN_DB, else foreman.duckdb here."""
    return path or os.environ.get("FOREMAN_DB") or DEFAULT_DB


def connect(path: str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the archive, turning DuckDB's errors into one-line messages."""
    if read_only and not Path(path).exists():
        raise DatabaseError(f"{path}: no such database", hint="load games first: foreman load PATH --db FILE")
    try:
        return duckdb.connect(path, read_only=read_only)
    except duckdb.IOException as e:
        text = str(e)
        m = re.search(r"PID (\d+)", text)
        if "lock" in text.lower():
            who = f" (process {m.group(1)})" if m else ""
            raise DatabaseError(f"{path} is in use by another foreman{who}",
                                hint="wait for it to finish, or load into another --db file") from None
        raise DatabaseError(f"{path}: {text.splitlines()[0]}") from None
    except (duckdb.Error, OSError) as e:
        raise DatabaseError(f"{path}: {str(e).splitlines()[0]}") from None


@dataclass
class LoadReport:
    """What a load did: games added, unchanged, replaced, refused, and the conflicts by name."""

    added: int = 0
    unchanged: int = 0
    replaced: int = 0
    invalid: int = 0
    conflicts: list[str] = field(default_factory=list)
    invalid_sources: list[str] = field(default_factory=list)
    plays: int = 0
    rows: dict[str, int] = field(default_factory=dict)


class _Batch:
    """Columns of every table for a batch of games, filled with plain appends."""

    def __init__(self) -> None:
        self.cols: dict[str, dict[str, list]] = {}
        self.ids: list[str] = []

    def table(self, name: str, *columns: str) -> dict[str, list]:
        t = self.cols.get(name)
        if t is None:
            t = self.cols[name] = {c: [] for c in columns}
        return t


def _flatten(b: _Batch, r: GameResult, now: datetime) -> int:
    """Append one game's rows to the batch; return its number of plays."""
    d = r.data
    gid = r.id
    P = r.players
    g = b.table("games", "id", "content_hash", "source", "status", "winner", "deals_played", "players", "stake",
                "stake_text", "currency", "played_at", "series_id", "series_seq", "quota", "target", "rules",
                "breaches", "raw", "loaded_at")
    for k, v in (("id", gid), ("content_hash", r.fingerprint.hex()), ("source", r.source), ("status", r.status),
                 ("winner", r.winner), ("deals_played", r.deals_played), ("players", list(P)),
                 ("stake", r.stake), ("stake_text", money.fmt(r.stake) if r.stake is not None else None),
                 ("currency", r.currency), ("played_at", r.played_at),
                 ("series_id", r.series[0] if r.series else None), ("series_seq", r.series[1] if r.series else None),
                 ("quota", d.rules.quota), ("target", d.rules.target), ("rules", json.dumps(r.rules)),
                 ("breaches", sum(1 for f in r.findings if f.severity == "error")), ("raw", r.text),
                 ("loaded_at", now)):
        g[k].append(v)
    gp = b.table("game_players", "game_id", "seat", "player")
    for s, p in enumerate(P):
        gp["game_id"].append(gid)
        gp["seat"].append(s)
        gp["player"].append(p)
    dl = b.table("deals", "game_id", "deal", "dealer", "decided", "tricks_played", "kitty", "discards")
    dp = b.table("deal_players", "game_id", "deal", "player", "seat", "role", "quota", "tricks", "outcome",
                 "made_quota", "hand")
    ps = b.table("passes", "game_id", "deal", "pass", "giver", "receiver", "card", "returned")
    tr = b.table("tricks", "game_id", "deal", "trick", "leader", "winner", "led_suit", "cards")
    pl = b.table("plays", "game_id", "deal", "trick", "position", "player", "card", "suit", "rank", "led_suit",
                 "followed", "won")
    pl_g, pl_d, pl_t, pl_pos, pl_p, pl_c, pl_s, pl_r, pl_l, pl_f, pl_w = pl.values()
    plays = 0
    for dr in r.deals:
        deal = d.deals[dr.number - 1]
        dn = dr.number
        for col, v in zip(dl.values(), (gid, dn, P[dr.dealer], dr.decided, dr.tricks_played,
                                        [CANONICAL[c] for c in deal.kitty], [CANONICAL[c] for c in deal.discards])):
            col.append(v)
        for s, p in enumerate(P):
            q = dr.quotas[s]
            for col, v in zip(dp.values(), (gid, dn, p, s, ROLE_NAMES[(s - dr.dealer) % 3], q, dr.tricks[s],
                                            dr.tricks[s] - q, dr.tricks[s] >= q,
                                            [CANONICAL[c] for c in deal.hands[s]])):
                col.append(v)
        for i, (gv, rc, c, x) in enumerate(deal.passes, 1):
            for col, v in zip(ps.values(), (gid, dn, i, P[gv], P[rc], CANONICAL[c], CANONICAL[x])):
                col.append(v)
        for tn, w in enumerate(dr.winners):
            ld, cs = deal.tricks[tn]
            led = SUIT_OF[cs[0]] if cs else None
            led_name = SUITS[led] if led is not None else None
            for col, v in zip(tr.values(), (gid, dn, tn + 1, P[ld], P[w] if w is not None else None,
                                            led_name, len(cs))):
                col.append(v)
            for j, c in enumerate(cs[:3]):
                p = (ld + j) % 3
                pl_g.append(gid)
                pl_d.append(dn)
                pl_t.append(tn + 1)
                pl_pos.append(j + 1)
                pl_p.append(P[p])
                pl_c.append(CANONICAL[c])
                pl_s.append(SUITS[SUIT_OF[c]])
                pl_r.append(RANK_VALUE[c])
                pl_l.append(led_name)
                pl_f.append(SUIT_OF[c] == led)
                pl_w.append(p == w)
                plays += 1
    fd = b.table("findings", "game_id", "code", "severity", "deal", "trick", "pass", "player", "card", "message",
                 "evidence")
    for f in r.findings:
        for col, v in zip(fd.values(), (gid, f.code, f.severity, f.deal, f.trick, f.pass_, f.player, f.card,
                                        f.message, json.dumps(f.evidence, ensure_ascii=False))):
            col.append(v)
    if r.net is not None:
        po = b.table("payouts", "game_id", "player", "net", "net_text", "currency", "short_of_quota", "winner",
                     "disputed")
        short = set(r.short_of_quota)
        disputed = bool(r.disputes)
        for p, v in r.net.items():
            for col, val in zip(po.values(), (gid, p, v, money.fmt(v), r.currency, p in short, p == r.winner,
                                              disputed)):
                col.append(val)
    b.ids.append(gid)
    return plays


_ARROW_TYPES = {"stake": DECIMAL_TYPE, "net": DECIMAL_TYPE, "players": pa.list_(pa.string()),
                "kitty": pa.list_(pa.string()), "discards": pa.list_(pa.string()), "hand": pa.list_(pa.string())}


def _arrow(cols: dict[str, list]) -> pa.Table:
    arrays = {}
    for name, values in cols.items():
        t = _ARROW_TYPES.get(name)
        if t is DECIMAL_TYPE:
            # A value with more than 10 decimal places keeps its exact text in *_text; the column rounds.
            values = [v.quantize(money.TEN_PLACES, context=money.ROUNDING) if v is not None else None for v in values]
        arrays[name] = pa.array(values, type=t) if t is not None else pa.array(values)
    return pa.table(arrays)


def _write(con: duckdb.DuckDBPyConnection, b: _Batch, report: LoadReport) -> None:
    for name in TABLES:
        cols = b.cols.get(name)
        if not cols or not next(iter(cols.values())):
            continue
        tbl = _arrow(cols)
        con.register("_batch", tbl)
        con.execute(f"INSERT INTO {name} ({', '.join(cols)}) SELECT {', '.join(cols)} FROM _batch")
        con.unregister("_batch")
        report.rows[name] = report.rows.get(name, 0) + tbl.num_rows


def init(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables and the statistics views if they are missing."""
    con.execute(SCHEMA)
    con.execute(VIEWS)


def load(results: Iterable[GameResult], path: str, replace: bool = False, batch_games: int = BATCH_GAMES,
         progress: Callable[[int], None] | None = None) -> LoadReport:
    """Load replayed games into the archive, a batch per transaction; never a game twice."""
    con = connect(path)
    report = LoadReport()
    try:
        init(con)
        pending: list[GameResult] = []
        seen: dict[str, str] = {}  # id -> content hash, for repeats within this input
        for r in results:
            if r.status == "invalid" or r.data is None:
                report.invalid += 1
                report.invalid_sources.append(r.source)
                continue
            h = r.fingerprint.hex()
            if r.id in seen:
                if seen[r.id] == h:
                    report.unchanged += 1
                else:
                    report.conflicts.append(f"{r.id} ({r.source}): a different game with this id is earlier in the input")
                continue
            seen[r.id] = h
            pending.append(r)
            if len(pending) >= batch_games:
                _commit(con, pending, replace, report)
                if progress:
                    progress(len(pending))
                pending = []
        if pending:
            _commit(con, pending, replace, report)
            if progress:
                progress(len(pending))
    except duckdb.Error as e:
        raise DatabaseError(f"{path}: {str(e).splitlines()[0]}") from None
    finally:
        con.close()
    return report


def _commit(con: duckdb.DuckDBPyConnection, games: list[GameResult], replace: bool, report: LoadReport) -> None:
    """One transaction: skip games already there, refuse or replace conflicts, insert the rest."""
    ids = pa.table({"id": [r.id for r in games]})
    con.register("_ids", ids)
    existing = dict(con.execute("SELECT g.id, g.content_hash FROM games g SEMI JOIN _ids USING (id)").fetchall())
    con.unregister("_ids")
    b = _Batch()
    now = datetime.now().astimezone()
    drop = []
    was_gc = gc.isenabled()
    gc.disable()  # flattening makes millions of small objects and no cycles: the collector only costs
    try:
        for r in games:
            old = existing.get(r.id)
            if old is not None:
                if old == r.fingerprint.hex():
                    report.unchanged += 1
                    continue
                if not replace:
                    report.conflicts.append(f"{r.id} ({r.source}): the archive holds a different game with this id")
                    continue
                drop.append(r.id)
                report.replaced += 1
            else:
                report.added += 1
            report.plays += _flatten(b, r, now)
    finally:
        if was_gc:
            gc.enable()
    con.execute("BEGIN TRANSACTION")
    try:
        if drop:
            con.register("_drop", pa.table({"id": drop}))
            for name in TABLES:
                key = "id" if name == "games" else "game_id"
                con.execute(f"DELETE FROM {name} WHERE {key} IN (SELECT id FROM _drop)")
            con.unregister("_drop")
        _write(con, b, report)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


@dataclass
class QueryResult:
    """Columns and rows of a query."""

    columns: list[str]
    rows: list[tuple]


def query(path: str, sql: str) -> QueryResult:
    """Run SQL on a read-only connection; a write is refused and changes nothing."""
    con = connect(path, read_only=True)
    try:
        cur = con.execute(sql)
        if cur.description is None:
            return QueryResult([], [])
        return QueryResult([d[0] for d in cur.description], cur.fetchall())
    except duckdb.Error as e:
        msg = str(e).splitlines()[0]
        if "read-only" in msg:
            raise DatabaseError(f"foreman query is read-only: {msg}",
                                hint="queries cannot change the archive; use foreman load to add games") from None
        raise DatabaseError(f"query failed: {msg}") from None
    finally:
        con.close()


@dataclass
class Stats:
    """The statistics report: per player, per role, findings, money, head to head."""

    players: QueryResult
    roles: QueryResult
    findings: QueryResult
    money: QueryResult
    head_to_head: QueryResult


def stats(path: str, player: str | None = None) -> Stats:
    """The ready-made reports, from the views documented in docs/queries.md."""
    con = connect(path, read_only=True)
    where = "WHERE player = $p" if player else ""
    params = {"p": player} if player else {}

    def q(sql: str) -> QueryResult:
        cur = con.execute(sql, params)
        return QueryResult([d[0] for d in cur.description], cur.fetchall())

    try:
        return Stats(
            players=q(f"SELECT * FROM player_summary {where} ORDER BY wins DESC, player"),
            roles=q(f"SELECT * FROM player_roles {where} ORDER BY player, role"),
            findings=q(f"SELECT * FROM player_findings {where} ORDER BY player, findings DESC, code"),
            money=q(f"SELECT * FROM player_money {where} ORDER BY currency, net DESC, player"),
            head_to_head=q(f"SELECT * FROM head_to_head {where} ORDER BY player, opponent"),
        )
    except duckdb.CatalogException as e:
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    finally:
        con.close()


def export_parquet(path: str, out_dir: str) -> dict[str, int]:
    """Write every table as a Parquet dataset, DIR/<table>/data.parquet; return rows per table."""
    con = connect(path, read_only=True)
    rows = {}
    try:
        for name in TABLES:
            d = Path(out_dir) / name
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise OutputError(f"{d}: {e.strerror or e}") from None
            target = str(d / "data.parquet").replace("'", "''")
            con.execute(f"COPY (SELECT * FROM {name}) TO '{target}' (FORMAT PARQUET)")
            rows[name] = con.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
    except duckdb.Error as e:
        raise DatabaseError(f"export failed: {str(e).splitlines()[0]}") from None
    finally:
        con.close()
    return rows


def counts(path: str) -> dict[str, int]:
    """Rows per table."""
    con = connect(path, read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        con.close()
