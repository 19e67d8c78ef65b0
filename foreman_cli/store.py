"""The DuckDB archive: schema, bulk idempotent loads from Arrow batches, read-only queries, Parquet export."""

from __future__ import annotations

import array
import functools
import itertools
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from dataclasses import dataclass, field
from decimal import Decimal
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import core, money, records
from .files import write_atomically
from .cards import CANONICAL, CARD_OF, RANK_OF
from .audit import Batch, BatchInterrupt, CrossChecks, checked_batches, chunked, no_cyclic_gc, pieces, record_batches, staged_line
from .errors import UsageError, DatabaseError, OutputError
from .findings import repeat_mark
from .reader import DEFAULT_MAX_RECORD_BYTES, ChunkText, FileMap, FileSeen, read_records
from .results import GameResult

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
else:
    class _DuckDB:
        """duckdb, imported where it is first used: a load forks its workers first.

        The import is 70-100 ms, and before the fork one core stood idle through it; the workers
        never use DuckDB. Once imported, the module takes this stand-in's place."""

        def __getattr__(self, name: str) -> Any:
            import duckdb as module
            globals()["duckdb"] = module
            return getattr(module, name)

    duckdb = _DuckDB()

DEFAULT_DB = "foreman.duckdb"
BATCH_GAMES = 500  # games replayed and staged together (a worker's task), unless plain JSON Lines go in chunks
# A batch also ends at this much record text, so a batch of very long games stays small.
BATCH_BYTES = 8 * 1024 * 1024
# DuckDB's limit during a load: it keeps a long load flat and the process under 400 MB
# (measured on 200 MB, transactions of 8,192 games: a peak of 365-378 MB; 349-361 MB at 80 MB).
LOAD_MEMORY = "96MB"
# Row groups of the archive a load writes (DuckDB's default is 122,880 rows). A whole archive's
# games are then several row groups, not one, and the checkpoint at the end compresses them on
# every core: measured on 200 MB of records, three loads interleaved with the default's, the
# checkpoint 3.4 -> 2.1 s, the load 13.4-14.6 -> 12.0-13.2 s, the file 57 -> 59 MB.
ROW_GROUP_ROWS = 8192
# Games a transaction holds (`load --batch`): batches are inserted into one open transaction
# until it holds this many games or TRANSACTION_BYTES of staged rows. A transaction of a whole
# row group or more is one DuckDB writes straight into the file, compressed, and logs by
# reference; a small one goes through the write-ahead log in full and is compressed again at the
# checkpoint. Measured on 200 MB of records, three loads interleaved with transactions of 500
# games: 12.4-14.8 -> 10.4-12.0 s, the reading process's CPU 13.9-16.1 -> 9.7-10.5 s, nothing
# spilled (175 MB before), a file of 62 MB (59 before).
TRANSACTION_GAMES = ROW_GROUP_ROWS
TRANSACTION_BYTES = 96 * 1024 * 1024
# Staged rows a load holds before it writes them, in one statement a table (_Transaction).
WRITE_BYTES = 12 * 1024 * 1024
# Tasks in flight a worker in a load. While the reading process commits a transaction (0.6-0.9 s
# for 8,192 games) the workers go on staging the next ones; with validate's 2 they soon stood idle.
# 200 MB, three runs each: 7.4-8.1 s with 2, 6.9-7.6 s with 5 or 6. Each task in flight holds
# about 5.6 MB of staged rows in the reading process: the peak was 357-367 MB with 5, 362-389 with 6.
LOAD_AHEAD = 5
# How far a load's workers yield the CPU to the reading process. The reading process, DuckDB's
# writes, is a load's bottleneck; sharing two cores with two workers, its inserts and commits took
# 3.3-3.6 s of a 200 MB load, against 2.1 s alone (--jobs 1). At nice 10: 2.4-2.9 s, and the load
# faster in 5 of 8 interleaved pairs, then in 8 of 8 (medians 4.59 -> 4.34 s, 3.78 -> 3.61 s).
# validate, whose reading process only reads, gained nothing (5 of 10), so its workers keep their
# priority, as do --analyze's, the bottleneck there.
LOAD_WORKER_NICE = 10


RANK_VALUE = {t: RANK_OF[c] + 2 for t, c in CARD_OF.items()}  # 2..14 (ace high), by token

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id VARCHAR PRIMARY KEY, content_hash VARCHAR NOT NULL, source VARCHAR, status VARCHAR NOT NULL,
    winner VARCHAR, deals_played INTEGER, players VARCHAR[], stake DECIMAL(38, 10), stake_text VARCHAR,
    currency VARCHAR, played_at TIMESTAMPTZ, series_id VARCHAR, series_seq INTEGER, quota VARCHAR,
    target INTEGER, rules JSON, breaches INTEGER, raw VARCHAR, loaded_at TIMESTAMPTZ);
CREATE TABLE IF NOT EXISTS deal_facts (game_id VARCHAR, deal INTEGER, dealer VARCHAR, dealer_seat INTEGER,
    decided BOOLEAN, tricks_played INTEGER, kitty UTINYINT[], discards UTINYINT[], hands UTINYINT[][],
    quotas INTEGER[], won INTEGER[], pass_from UTINYINT[], pass_to UTINYINT[], pass_card UTINYINT[],
    pass_returned UTINYINT[], leaders UTINYINT[], winners INTEGER[], cards UTINYINT[][]);
CREATE TABLE IF NOT EXISTS findings (game_id VARCHAR, code VARCHAR, severity VARCHAR, deal INTEGER,
    trick INTEGER, pass INTEGER, player VARCHAR, card VARCHAR, message VARCHAR, evidence JSON);
CREATE TABLE IF NOT EXISTS claims (game_id VARCHAR, deal INTEGER, player VARCHAR, accepted BOOLEAN,
    first_trick INTEGER, tricks INTEGER, claim_rule VARCHAR, holds BOOLEAN, statement VARCHAR);
CREATE TABLE IF NOT EXISTS play_costs (game_id VARCHAR, deal INTEGER, trick INTEGER, player VARCHAR, card VARCHAR,
    sure_before INTEGER, best VARCHAR[], cost INTEGER);
CREATE TABLE IF NOT EXISTS deal_accuracy (game_id VARCHAR, deal INTEGER, player VARCHAR, cards INTEGER, cost INTEGER,
    accuracy DOUBLE, exact BOOLEAN, turned_trick INTEGER, turned_by VARCHAR);
CREATE TABLE IF NOT EXISTS payouts (game_id VARCHAR, player VARCHAR, net DECIMAL(38, 10), net_text VARCHAR,
    currency VARCHAR, short_of_quota BOOLEAN, winner BOOLEAN, disputed BOOLEAN);
"""

# A deal is stored once, its cards as lists (deal_facts); the tables of seats, passes, tricks and
# plays are views that unfold it. Storing them as rows made a load spend half its time writing
# the same cards a second time (measured: 200 MB of records loaded in 40 s as rows, 21 s so).
UNFOLDED = """
CREATE OR REPLACE MACRO card_token(code) AS ([CARD_TOKENS])[code + 1];

CREATE OR REPLACE VIEW game_players AS
SELECT id AS game_id, CAST(s - 1 AS INTEGER) AS seat, players[s] AS player FROM games, range(1, 4) r(s);

CREATE OR REPLACE VIEW deals AS
SELECT game_id, deal, dealer, decided, tricks_played, list_transform(kitty, lambda c: card_token(c)) AS kitty,
       list_transform(discards, lambda c: card_token(c)) AS discards
FROM deal_facts;

CREATE OR REPLACE VIEW deal_players AS
SELECT d.game_id, d.deal, g.players[s] AS player, CAST(s - 1 AS INTEGER) AS seat,
       ['D', 'L', 'R'][(s - 1 - d.dealer_seat + 3) % 3 + 1] AS role, d.quotas[s] AS quota, d.won[s] AS tricks,
       d.won[s] - d.quotas[s] AS outcome, d.won[s] >= d.quotas[s] AS made_quota,
       list_transform(d.hands[s], lambda c: card_token(c)) AS hand
FROM deal_facts d JOIN games g ON g.id = d.game_id, range(1, 4) r(s);

CREATE OR REPLACE VIEW passes AS
SELECT d.game_id, d.deal, CAST(i AS INTEGER) AS pass, g.players[d.pass_from[i] + 1] AS giver,
       g.players[d.pass_to[i] + 1] AS receiver, card_token(d.pass_card[i]) AS card,
       card_token(d.pass_returned[i]) AS returned
FROM deal_facts d JOIN games g ON g.id = d.game_id, range(1, len(d.pass_from) + 1) r(i);

CREATE OR REPLACE VIEW _trick_rows AS
SELECT d.game_id, d.deal, g.players, unnest(d.leaders) AS seat, unnest(d.winners) AS winner,
       unnest(d.cards) AS cs, generate_subscripts(d.leaders, 1) AS i
FROM deal_facts d JOIN games g ON g.id = d.game_id;

CREATE OR REPLACE VIEW tricks AS
SELECT game_id, deal, CAST(i AS INTEGER) AS trick, players[seat + 1] AS leader, players[winner + 1] AS winner,
       right(card_token(cs[1]), 1) AS led_suit, CAST(len(cs) AS INTEGER) AS cards
FROM _trick_rows;

CREATE OR REPLACE VIEW plays AS
SELECT game_id, deal, CAST(i AS INTEGER) AS trick, CAST(j AS INTEGER) AS position,
       players[(seat + j - 1) % 3 + 1] AS player, card, right(card, 1) AS suit,
       CASE left(card, -1) WHEN 'J' THEN 11 WHEN 'Q' THEN 12 WHEN 'K' THEN 13 WHEN 'A' THEN 14
            ELSE CAST(left(card, -1) AS INTEGER) END AS rank,
       led AS led_suit, right(card, 1) = led AS followed, (seat + j - 1) % 3 = winner AS won
FROM (SELECT *, card_token(unnest(cs[1:3])) AS card, generate_subscripts(cs[1:3], 1) AS j,
             right(card_token(cs[1]), 1) AS led
      FROM _trick_rows);
""".replace("CARD_TOKENS", ", ".join(f"'{t}'" for t in CANONICAL))

TABLES = ("games", "game_players", "deals", "deal_players", "passes", "tricks", "plays", "claims", "findings",
          "payouts", "play_costs", "deal_accuracy")
# Filled only by `load --analyze`.
ANALYSIS_TABLES = ("play_costs", "deal_accuracy")
# What a load writes (and `--replace` deletes from); the others are views of these.
STORED = ("games", "deal_facts", "claims", "findings", "payouts", "play_costs", "deal_accuracy")

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

CREATE OR REPLACE VIEW player_accuracy AS
SELECT a.player, dp.role, count(*) AS deals, sum(a.cards) AS cards, sum(a.cost) AS cost,
       round(sum(a.accuracy * a.cards) / nullif(sum(a.cards), 0), 3) AS accuracy
FROM deal_accuracy a JOIN deal_players dp USING (game_id, deal, player)
WHERE a.cards > 0 GROUP BY a.player, dp.role;

CREATE OR REPLACE VIEW head_to_head AS
SELECT a.player AS player, b.player AS opponent, count(*) AS games,
       count(*) FILTER (WHERE g.winner = a.player) AS wins,
       count(*) FILTER (WHERE g.winner = b.player) AS losses
FROM game_players a JOIN game_players b ON a.game_id = b.game_id AND a.player <> b.player
JOIN games g ON g.id = a.game_id WHERE g.status <> 'invalid'
GROUP BY a.player, b.player;
"""



# Every connection: DuckDB never fetches or loads an extension by itself (a SQLite file given as an
# archive made it try to download one), so nothing foreman opens reaches the network.
NO_EXTENSIONS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def db_path(path: str | None) -> str:
    """The database file: the option, else $FOREMAN_DB, else foreman.duckdb here."""
    return path or os.environ.get("FOREMAN_DB") or DEFAULT_DB


def connect(path: str, read_only: bool = False, row_group_rows: int | None = None) -> duckdb.DuckDBPyConnection:
    """Open the archive, turning DuckDB's errors into one-line messages; with `row_group_rows`,
    for writing in row groups of that many rows."""
    if read_only and not Path(path).exists():
        raise DatabaseError(f"{path}: no such database", hint="load games first: foreman load PATH --db FILE")
    _refuse_other_files(path)
    try:
        if row_group_rows is None:
            con = duckdb.connect(path, read_only=read_only, config=dict(NO_EXTENSIONS))
            con.execute("SET TimeZone = 'UTC'")  # times shown the same on every machine
            return con
        # The row group size is an option of ATTACH, which DuckDB does not keep in the file. The
        # spill files go where DuckDB puts them for a file opened directly, not in the working directory.
        con = duckdb.connect(":memory:", config={"temp_directory": path + ".tmp", **NO_EXTENSIONS})
        try:
            quoted = path.replace("'", "''")
            con.execute(f"ATTACH '{quoted}' AS archive (ROW_GROUP_SIZE {int(row_group_rows)})")
            # This process holds the archive now: what a killed load left in its spill folder is stale.
            shutil.rmtree(path + ".tmp", ignore_errors=True)
            con.execute("USE archive")
            con.execute("SET TimeZone = 'UTC'")
        except BaseException:
            con.close()
            raise
        return con
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

    def to_dict(self, db: str) -> dict[str, Any]:
        """`load --json`: the counts, each conflict and each invalid record with why, rows per table."""
        return {"db": db, "added": self.added, "unchanged": self.unchanged, "replaced": self.replaced,
                "conflicts": self.conflicts, "invalid": self.invalid_sources, "plays": self.plays, "rows": self.rows}


# Rows of every game go through staging tables, one row a game and one a deal (with its cards as
# lists, stored as they are in deal_facts). Python touches each deal once, not each card
# (docs/scale.md: per-row Python work is what costs).
_GAME_COLS = ("id", "content_hash", "source", "status", "winner", "deals_played", "players", "stake", "stake_text",
              "currency", "played_at", "series_id", "series_seq", "quota", "target", "rules", "breaches", "raw",
              "loaded_at")
_DEAL_SCALARS = ("game_id", "deal", "dealer", "dealer_seat", "decided", "tricks_played", "quotas", "won", "winners")
_DEAL_LISTS = ("kitty", "discards", "hands", "pass_from", "pass_to", "pass_card", "pass_returned", "leaders", "cards")
_FINDING_COLS = ("game_id", "code", "severity", "deal", "trick", "pass", "player", "card", "message", "evidence")
_CLAIM_COLS = ("game_id", "deal", "player", "accepted", "first_trick", "tricks", "claim_rule", "holds", "statement")
_COST_COLS = ("game_id", "deal", "trick", "player", "card", "sure_before", "best", "cost")
_ACCURACY_COLS = ("game_id", "deal", "player", "cards_analysed", "cost", "accuracy", "exact", "turned_trick", "turned_by")
_PAYOUT_COLS = ("game_id", "player", "net", "net_text", "currency", "short_of_quota", "winner", "disputed")

_INSERTS = [
    ("games", "INSERT INTO games SELECT * FROM _games"),
    ("deal_facts", "INSERT INTO deal_facts BY NAME SELECT * FROM _deals"),
    ("claims", "INSERT INTO claims SELECT * FROM _claims"),
    ("findings", "INSERT INTO findings SELECT * FROM _findings"),
    ("payouts", "INSERT INTO payouts SELECT * FROM _payouts"),
    ("play_costs", "INSERT INTO play_costs SELECT * FROM _play_costs"),
    ("deal_accuracy", "INSERT INTO deal_accuracy SELECT * FROM _deal_accuracy"),
]


def _unfolded_rows(deals: pa.Table | None) -> dict[str, int]:
    """The rows a batch adds to the views that unfold deal_facts, counted from its staged deals."""
    if deals is None:
        return {}
    import pyarrow.compute as pc
    tricks = deals["cards"].combine_chunks()
    cards = pc.list_value_length(tricks.flatten())
    return {"deals": deals.num_rows, "deal_players": 3 * deals.num_rows,
            "passes": pc.sum(pc.list_value_length(deals["pass_from"])).as_py() or 0,
            "tricks": len(cards), "plays": pc.sum(pc.min_element_wise(cards, 3)).as_py() or 0}


class _Batch:
    """Staging columns for a batch of games: one row a game, a deal, a finding, a payout."""

    def __init__(self) -> None:
        # "_n" is the game's place in its batch: what a skipped game's rows are dropped by.
        self.games = _Rows((*_GAME_COLS, "_n"))
        self.deals = _Rows((*_DEAL_SCALARS, "_n"))
        self.deal_lists = {c: _Codes(c in ("hands", "cards")) for c in _DEAL_LISTS}
        self.findings = _Rows((*_FINDING_COLS, "_n"))
        self.claims = _Rows((*_CLAIM_COLS, "_n"))
        self.payouts = _Rows((*_PAYOUT_COLS, "_n"))
        self.costs = _Rows((*_COST_COLS, "_n"))
        self.accuracy = _Rows((*_ACCURACY_COLS, "_n"))
        self._rules: dict[int, tuple[dict[str, Any] | None, str]] = {}
        self._amounts: dict[int, tuple[Decimal, str, Decimal | None]] = {}
        self.deal_flat = [(c.flat, c.inner, c.outer) for c in self.deal_lists.values()]

    def amount(self, v: Decimal) -> tuple[str, Decimal | None]:
        """An amount's exact text and its value for a DECIMAL(38, 10) column (_fits), made once
        for each amount object of the batch: a game's nets are the settlement's cached objects,
        shared by every game of the same stake and outcome."""
        made = self._amounts.get(id(v))
        if made is None or made[0] is not v:
            # The object is kept with its text, so its id cannot be reused while the batch lives.
            made = self._amounts[id(v)] = (v, money.fmt(v), _fits(v))
        return made[1], made[2]

    def rules_text(self, rules: dict[str, Any] | None) -> str:
        """The rules as JSON, made once for each rules object of the batch: games with the same
        rules share one (HouseRules.as_dict), and json.dumps of each was 4% of the staging."""
        made = self._rules.get(id(rules))
        if made is None:
            # The object is kept with its text, so its id cannot be reused while the batch lives.
            made = self._rules[id(rules)] = (rules, json.dumps(rules))
        return made[1]


class _Rows:
    """A staging table's rows as tuples, turned into columns once the batch is whole: a tuple a
    row and one transposition cost less than an append a value (measured with callgrind, staging
    2,000 games twice: 203,000 instructions a game with a list a column, 173,000 so)."""

    __slots__ = ("names", "rows", "append")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.rows: list[tuple] = []
        self.append = self.rows.append

    def columns(self, drop: str | None = None) -> dict[str, Any]:
        """The rows as a sequence of values a column, by name, without the column `drop`."""
        cols = zip(*self.rows) if self.rows else ((),) * len(self.names)
        return {name: col for name, col in zip(self.names, cols) if name != drop}


class _Codes:
    """One list column of a batch's deals (cards as codes 0-51, or seats), kept flat with its
    offsets, all as bytes: Arrow takes them as they are, where a list of ints costs it a conversion
    an offset (a batch's 36,000 trick offsets took 3 ms, a tenth of its staging)."""

    __slots__ = ("nested", "flat", "inner", "outer")

    def __init__(self, nested: bool) -> None:
        self.nested = nested  # a list of lists a deal (hands, tricks)
        # flat: the codes; inner: where each list (of a deal, or of a hand or trick) ends in flat;
        # outer, for lists of lists: where each deal's lists end in inner (native int32 offsets)
        self.flat, self.inner, self.outer = code_column()

    def arrow(self) -> pa.Array:
        import pyarrow as pa
        codes = pa.Array.from_buffers(pa.uint8(), len(self.flat), [None, pa.py_buffer(self.flat)])
        a = pa.ListArray.from_arrays(_offsets(self.inner), codes)
        return pa.ListArray.from_arrays(_offsets(self.outer), a) if self.nested else a


def _offsets(raw: bytearray) -> pa.Array:
    import pyarrow as pa
    return pa.Array.from_buffers(pa.int32(), len(raw) // 4, [None, pa.py_buffer(raw)])


def code_column() -> tuple[bytearray, bytearray, bytearray]:
    """An empty list column for deal_codes: its codes, and its inner and outer offsets (each
    starting at 0, native int32, as Arrow's list offsets are)."""
    return bytearray(), bytearray(_OFFSET_ZERO), bytearray(_OFFSET_ZERO)


def _offset(n: int) -> bytes:
    return n.to_bytes(4, sys.byteorder, signed=True)


_OFFSET_ZERO = _offset(0)


def deal_codes(deal, players: tuple[str, ...], seats: dict[str, int], cards: dict[str, int], n_tricks: int,
               columns: list[tuple[bytearray, bytearray, bytearray]]) -> None:
    """Append a deal's kitty, discards, hands (by seat), passes (giver, receiver, card, returned)
    and its first n_tricks tricks (leaders, cards) to the nine flat columns of deal_facts.

    The compiled core's `deal_codes` is its fast path.
    """
    kitty, discards, hands, pass_from, pass_to, pass_card, pass_returned, leaders, tricks = columns
    card, seat = cards.__getitem__, seats.__getitem__

    def add(col, codes) -> None:
        col[0].extend(codes)
        col[1].extend(_offset(len(col[0])))

    add(kitty, map(card, deal.kitty))
    add(discards, map(card, deal.discards))
    for p in players:
        add(hands, map(card, deal.hands[p]))
    hands[2].extend(_offset(len(hands[1]) // 4 - 1))
    passes = deal.passes
    add(pass_from, (seat(x.from_) for x in passes))
    add(pass_to, (seat(x.to) for x in passes))
    add(pass_card, (card(x.card) for x in passes))
    add(pass_returned, (card(x.returned) for x in passes))
    played = deal.tricks[:n_tricks]
    add(leaders, (seat(t.leader) for t in played))
    for t in played:
        add(tricks, map(card, t.cards))
    tricks[2].extend(_offset(len(tricks[1]) // 4 - 1))


def _flatten(b: _Batch, r: GameResult, now: datetime, n: int) -> None:
    """Add one game to the staging columns."""
    d = r.data
    gid = r.id
    P = r.players
    stake_text, stake = b.amount(r.stake) if r.stake is not None else (None, None)
    findings = r.findings  # none, for most games: no generator made for them
    breaches = sum(f.severity == "error" for f in findings) if findings else 0
    deals = r.deals
    # A won game's deals end at the deciding one (the replay skips any recorded after): its number
    # without deals_played's search for it.
    played = deals[-1].number if r.status == "won" and deals[-1].decided else r.deals_played
    series = r.series
    b.games.append((
        gid, r.fingerprint.hex(), r.source, r.status, r.winner, played, P, stake, stake_text, r.currency,
        records.utc_instant(r.played_at), series[0] if series else None, series[1] if series else None, d.rules.quota, d.rules.target,
        b.rules_text(r.rules), breaches, r.text, now, n))
    add_deal = b.deals.append
    lists = b.deal_flat
    codes = core.deal_codes or deal_codes
    blocks = d.blocks  # a game the compiled lane read: its deals as codes already
    from_blocks = core.lane_codes  # blocks exist only where the compiled lane read the record
    for dr in deals:
        add_deal((gid, dr.number, P[dr.dealer], dr.dealer, dr.decided, dr.tricks_played, dr.quotas, dr.tricks,
                  dr.winners, n))
        # the tricks until play stopped: not those after the game was won
        if blocks is not None:
            from_blocks(blocks, dr.number - 1, len(dr.winners), lists)
        else:
            codes(d.deals[dr.number - 1], P, d.seat, CARD_OF, len(dr.winners), lists)
        c = dr.claim
        if c is not None:
            b.claims.append((gid, dr.number, P[c.by], c.accepted, c.first_trick, c.tricks, c.rule, c.holds,
                             c.statement, n))
    for f in findings:
        b.findings.append((gid, f.code, f.severity, f.deal, f.trick, f.pass_, f.player, f.card, f.message,
                           json.dumps(f.evidence, ensure_ascii=False), n))
    if r.net is not None:
        short = set(r.short_of_quota)
        disputed = bool(findings) and bool(r.disputes)
        add_payout, currency, winner = b.payouts.append, r.currency, r.winner
        amount = b.amount
        for p, v in r.net.items():
            text, fitted = amount(v)
            add_payout((gid, p, fitted, text, currency, p in short, p == winner, disputed, n))


def _flatten_analysis(b: _Batch, r: GameResult, budget_ms: float, n: int) -> None:
    """Add one game's play analysis: a row a card analysed, a row a player of each deal."""
    from .analysis import analyze_game
    from .cards import CANONICAL
    P = r.players
    for d in analyze_game(r, budget_ms=budget_ms).deals:
        for p in d.plays:
            best = None if p.best is None else [CANONICAL[c] for c in p.best]
            b.costs.append((r.id, d.deal, p.trick, P[p.seat], CANONICAL[p.card], p.sure_before[p.seat], best,
                            p.cost, n))
        turned = (d.turned[0], P[d.turned[1]]) if d.turned else (None, None)
        for s in range(3):
            cards, cost, acc = d.player_totals(s)
            b.accuracy.append((r.id, d.deal, P[s], cards, cost, acc, d.exact, *turned, n))


@lru_cache(maxsize=1)
def _arrow_types() -> dict[str, Any]:
    """The Arrow type of each staging column (pyarrow loads only for the commands that write)."""
    import pyarrow as pa
    return {
        "stake": pa.decimal128(38, 10), "net": pa.decimal128(38, 10), "players": pa.list_(pa.string()),
        "quotas": pa.list_(pa.int32()), "won": pa.list_(pa.int32()), "winners": pa.list_(pa.int32()),
        "played_at": pa.string(), "loaded_at": pa.timestamp("us", tz="UTC"),
        "deal": pa.int32(), "dealer_seat": pa.int32(), "tricks_played": pa.int32(), "deals_played": pa.int32(),
        "series_seq": pa.int32(), "target": pa.int32(), "breaches": pa.int32(), "trick": pa.int32(), "pass": pa.int32(),
        "raw": pa.string(), "rules": pa.string(), "evidence": pa.string(), "player": pa.string(),
        "card": pa.string(), "currency": pa.string(), "series_id": pa.string(), "stake_text": pa.string(),
        "sure_before": pa.int32(), "best": pa.list_(pa.string()), "cost": pa.int32(), "cards_analysed": pa.int32(),
        "accuracy": pa.float64(), "exact": pa.bool_(), "turned_trick": pa.int32(), "turned_by": pa.string(),
        "first_trick": pa.int32(), "tricks": pa.int32(), "accepted": pa.bool_(), "holds": pa.bool_(),
        "claim_rule": pa.string(), "statement": pa.string(),
        "_n": pa.int32(),
    }


DECIMAL_WHOLE_DIGITS = 28  # DECIMAL(38, 10)


def _fits(v: Decimal | None) -> Decimal | None:
    """An amount rounded to 10 places for a DECIMAL(38, 10) column, or None when it is too large.

    A value with more than 10 decimal places keeps its exact text in *_text; the column rounds.
    One of more than 28 whole digits does not fit DECIMAL(38, 10) at all: the column is null and
    the text column holds it exactly."""
    if v is None or v.adjusted() >= DECIMAL_WHOLE_DIGITS:
        return None
    return v.quantize(money.TEN_PLACES, context=money.ROUNDING)


def _arrow(cols: dict[str, list]) -> pa.Table:
    import pyarrow as pa
    arrays = {}
    for name, values in cols.items():
        t = _arrow_types().get(name)
        if name == "raw":
            arrays[name] = _long_text(values)
        else:
            arrays[name] = pa.array(values, type=t) if t is not None else pa.array(values)
    return pa.table(arrays)


def _long_text(values: list[str | None]) -> pa.Array:
    """Long strings (the records' text) as an Arrow string array, built from one buffer of their
    UTF-8 and its offsets: a list of str costs pyarrow a conversion a string, and a list of bytes a
    copy a string and a cast that checks them all again (measured on 10,000 records of 6 kB: 0.05-0.18
    s against 0.02 s). str.encode has checked them already: a lone surrogate raises there."""
    import pyarrow as pa
    encoded = [v.encode() if v is not None else None for v in values]
    data = None if None in encoded else b"".join(encoded)
    if data is None or len(data) >= 2**31:  # nulls, or offsets past int32: through bytes and a cast
        return pa.array(encoded, type=pa.binary()).cast(pa.string())
    offsets = array.array("i", [0])
    offsets.extend(itertools.accumulate(map(len, encoded)))
    return pa.Array.from_buffers(pa.string(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _text_places(games: pa.Table, texts: ChunkText, spans: list[tuple[int, int]]) -> pa.Table:
    """The games with their text as its places in the file (offset and length, in bytes), and
    the file as the worker read it in the table's metadata."""
    import pyarrow as pa
    at, size = zip(*spans) if spans else ((), ())
    places = pa.StructArray.from_arrays([pa.array(at, pa.int64()), pa.array(size, pa.int32())], names=["at", "size"])
    seen = texts.seen
    games = games.add_column(_GAME_COLS.index("raw"), "raw", places)
    return games.replace_schema_metadata({_TEXT_FILE: texts.source,
                                          _TEXT_SEEN: f"{seen.device} {seen.inode} {seen.size} {seen.mtime_ns}"})


_TEXT_FILE, _TEXT_SEEN = b"foreman.text_file", b"foreman.text_seen"


def _text_views(data, places: pa.StructArray) -> tuple[pa.Array, int, int]:
    """The strings at `places` (offsets and lengths) in `data` (the file's map) as an Arrow
    string_view array over it, copying none, and the range of data it spans.

    The records' text is most of what a load's workers would otherwise send back (200 of 282 MB
    for 200 MB of records): they copied it twice, and the reading process read it into new
    memory. Measured on 200 MB, eight interleaved loads: the reading process's page faults
    195,000 -> 150,000, its peak 355 -> 296 MB, the load's time unchanged until the buffers
    results are read into were used again (workers.ReceiveBuffers): with both, 6.6% faster."""
    import struct
    import pyarrow as pa
    at = places.field("at").to_pylist()
    size = places.field("size").to_pylist()
    if not at:
        return pa.array([], pa.string_view()), 0, 0
    lo = min(at)
    hi = max(map(sum, zip(at, size)))
    views = bytearray(16 * len(at))
    pack = struct.pack_into
    for i, (a, n) in enumerate(zip(at, size)):
        if n <= 12:  # Arrow keeps a short string in its view
            pack("<i12s", views, 16 * i, n, data[a:a + n])
        else:  # its length, its first four bytes, then where it is: buffer 0, this far in
            pack("<i4sii", views, 16 * i, n, data[a:a + 4], 0, a - lo)
    buffers = [None, pa.py_buffer(views), pa.py_buffer(memoryview(data)[lo:hi])]
    return pa.Array.from_buffers(pa.string_view(), len(at), buffers), lo, hi


def _write(con: duckdb.DuckDBPyConnection, parts: list[tuple[dict[str, pa.Table], list[int]]],
           report: LoadReport, files: FileMap | None = None) -> None:
    """Insert the games at places `keep` of each part's staged tables, all the parts together: one
    statement a table. The parts' tables have the same columns, and their text, if it is in a file
    (`_text_places`), is in the same file."""
    parts = [(tables, keep) for tables, keep in parts if keep]
    if not parts:
        return
    placed: list[tuple[FileSeen, int, int]] = []  # the text viewed in the file: as it was, and where
    kept = [_part_rows(tables, keep, files, placed) for tables, keep in parts]
    tables = kept[0] if len(kept) == 1 else {name: _concat([k[name] for k in kept]) for name in kept[0]}
    for name, t in tables.items():
        con.register(name, t)
    try:
        for table, sql in _INSERTS:
            staged = tables.get("_deals" if table == "deal_facts" else f"_{table}")
            if staged is None or not staged.num_rows:
                continue  # nothing to add (the analysis tables without --analyze, a batch without claims)
            n = con.execute(sql).fetchone()[0]
            report.rows[table] = report.rows.get(table, 0) + n
        deals = report.rows.pop("deal_facts", 0)
        for name, rows in _unfolded_rows(tables["_deals"] if deals else None).items():
            report.rows[name] = report.rows.get(name, 0) + rows
        report.rows["game_players"] = 3 * report.rows.get("games", 0)
    finally:
        for name in tables:
            try:
                con.unregister(name)
            except duckdb.Error:
                pass  # after a failed statement: the first error is the one to tell
    for seen, lo, hi in placed:
        files.check(seen)  # changed while DuckDB read it: the transaction is rolled back
        files.release(lo, hi)
    report.plays = report.rows.get("plays", 0)


def _part_rows(tables: dict[str, pa.Table], keep: list[int], files: FileMap | None,
               placed: list[tuple[FileSeen, int, int]]) -> dict[str, pa.Table]:
    """A batch's staged tables cut to the games at places `keep`, their text taken from the file
    where it is there (its range appended to `placed`)."""
    every = len(keep) == len(tables["_games"])  # the usual case: nothing to drop
    tables = {name: (t if every else _kept(t, keep)).drop_columns(["_n"]) for name, t in tables.items()}
    games = tables["_games"]
    meta = games.schema.metadata or {}
    if _TEXT_FILE in meta:  # the text is in the file, where the records lie: viewed, never copied
        if files is None:
            raise ValueError("the games' text is in their file, and there is no FileMap to take it from")
        seen = FileSeen(*map(int, meta[_TEXT_SEEN].split()))
        data = files.text(meta[_TEXT_FILE].decode(), seen)
        views, lo, hi = _text_views(data, games["raw"].combine_chunks())
        tables["_games"] = games.set_column(_GAME_COLS.index("raw"), "raw", views).replace_schema_metadata(None)
        placed.append((seen, lo, hi))
    return tables


def _concat(tables: list[pa.Table]) -> pa.Table:
    """The tables' rows, chunks side by side (copying none); a column of an empty batch may be
    typed null (_arrow), and a null column takes its type from the others."""
    import pyarrow as pa
    rows = [t for t in tables if t.num_rows]
    return pa.concat_tables(rows, promote_options="default") if rows else tables[0]


def _text_kind(tables: dict[str, pa.Table]) -> tuple:
    """What parts written together must share: their games' columns and the file their text is in."""
    games = tables["_games"]
    return games.schema.remove_metadata(), (games.schema.metadata or {}).get(_TEXT_FILE)


def _kept(t: pa.Table, keep: list[int]) -> pa.Table:
    """The staged rows of the games at places `keep` (ascending) of their batch.

    A table's rows are in the order of their games' places ("_n", which _Batch appends in order),
    so a run of places, what a batch split between two transactions keeps on each side, is a
    slice, which copies nothing (measured on a batch of 1,390 games: 0.9 ms, against 35 ms to
    filter every table by the places).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    n = t["_n"]
    if keep[-1] - keep[0] == len(keep) - 1:
        start = pc.sum(pc.less(n, keep[0])).as_py() or 0
        return t.slice(start, (pc.sum(pc.less_equal(n, keep[-1])).as_py() or 0) - start)
    return t.filter(pc.is_in(n, value_set=pa.array(keep, type=pa.int32())))


def init(con: duckdb.DuckDBPyConnection, path: str = ":memory:") -> None:
    """Create the tables and views if they are missing, all or none; refuse an archive whose
    seats, passes, tricks and plays are tables (an earlier foreman's), which this one cannot add to."""
    old = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'plays' "
                      "AND table_type = 'BASE TABLE'").fetchone()[0]
    if old:
        raise DatabaseError(f"{path} is an archive of an earlier foreman, which stored each play as a row; "
                            "this one stores each deal once and cannot add to it",
                            hint="load the records into a new archive (--db NEW.duckdb); the old one still "
                                 "answers query, stats and export")
    con.execute("BEGIN TRANSACTION")
    con.execute(SCHEMA)
    con.execute(UNFOLDED)
    con.execute(VIEWS)
    con.execute("COMMIT")


def stage_tables(results: list[GameResult], analyze: float | None = None,
                 texts: ChunkText | None = None) -> dict[str, pa.Table]:
    """Flatten a batch of replayed games into Arrow staging tables (one row a game, a deal, ...).

    The pipeline's stage for `load` (audit.checked_batches runs it where the games were
    replayed). With `analyze` (a search budget in ms) every deal is analysed too (analysis.py).
    With `texts` (where the records lie in their file, one span a result) the games' text is
    staged as those places, for the reading process to take from the file (_text_views).
    """
    b = _Batch()
    now = datetime.now(timezone.utc)
    spans: list[tuple[int, int] | None] = []
    with no_cyclic_gc():
        for n, r in enumerate(results):
            if r.status != "invalid" and r.data is not None:
                _flatten(b, r, now, n)
                if texts is not None:
                    spans.append(texts.spans[n])
                if analyze is not None:
                    _flatten_analysis(b, r, analyze, n)
        placed = texts is not None and None not in spans
        staged = [("_games", b.games), ("_claims", b.claims), ("_findings", b.findings), ("_payouts", b.payouts)]
        if analyze is not None:
            staged += [("_play_costs", b.costs), ("_deal_accuracy", b.accuracy)]
        tables = {name: _arrow(rows.columns(drop="raw" if placed and name == "_games" else None))
                  for name, rows in staged}
        if placed:
            tables["_games"] = _text_places(tables["_games"], texts, spans)
        deals = _arrow(b.deals.columns())
        for name, codes in b.deal_lists.items():
            deals = deals.append_column(name, codes.arrow())
        tables["_deals"] = deals
        return tables


def load(results: Iterable[GameResult], path: str, replace: bool = False, batch_games: int = TRANSACTION_GAMES,
         progress: Callable[[int], None] | None = None) -> LoadReport:
    """Load what the audit gave (audit_records: its cross-game findings included) into the archive,
    `batch_games` games a transaction."""
    batches = (Batch(b, stage_tables(b)) for b in chunked(results, min(batch_games, BATCH_GAMES)))
    return _store(_Archive(path), batches, replace, progress, None, batch_games)


def load_paths(paths: list[str], path: str, overrides: dict[str, Any] | None = None, replace: bool = False,
               batch_games: int = TRANSACTION_GAMES, jobs: int = 1, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
               progress: Callable[[int], None] | None = None, analyze: float | None = None) -> LoadReport:
    """Read, replay and load record files through the audit's pipeline, `batch_games` games a
    transaction; with jobs > 1 the replays and the flattening run in workers.

    With `analyze` (a search budget in ms) every deal added is analysed into play_costs and
    deal_accuracy.
    """
    stage = stage_tables if analyze is None else functools.partial(stage_tables, analyze=analyze)
    if jobs > 1:
        # pyarrow's first conversion costs 0.1 s (its compute functions, the shim it checks
        # numpy and pandas with): made here, before the workers fork, it is made once.
        stage_tables([])
    parts = load_pieces(paths, max_record_bytes, batch_games, analyze is not None)
    archive = _Archive(path)
    # With --analyze the workers are the bottleneck and each task takes seconds: more in flight
    # would only lengthen the wait for them after a Ctrl-C, and a lower priority would only slow them.
    # A plain load's archive opens once its workers have their first tasks: connecting and creating
    # the tables took 45-75 ms, which the reading process spent while the workers stood unforked.
    # An error there (a file in use) waits for the tasks in flight, well under a second; with
    # --analyze, whose tasks take seconds, or without workers, the archive opens first.
    plain = analyze is None
    early = plain and jobs > 1
    batches = checked_batches(parts, overrides, jobs, shape=staged_line, stage=stage, fast=plain,
                              ahead=LOAD_AHEAD if plain else 2, nice=LOAD_WORKER_NICE if plain else 0,
                              started=archive.open if early else None)
    return _store(archive, batches, replace, progress, CrossChecks(hold=False), batch_games, opened_as_workers_start=early)


def load_pieces(paths: list[str], max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
                batch_games: int = TRANSACTION_GAMES, analysed: bool = False) -> Iterator[Any]:
    """The input of a load as its workers' tasks (audit.pieces)."""
    batch = min(batch_games, BATCH_GAMES)
    if not analysed:
        # Plain JSON Lines in chunks the workers read, as validate's are: this process, which the
        # archive's writes keep busy, then only finds where they are cut. Measured on 200 MB, three
        # loads interleaved with records read here and sent in batches of 500: 9.5-9.9 -> 8.8-9.3 s,
        # this process's CPU 9.0-9.1 -> 7.5-7.9 s, its peak 356-375 -> 357-367 MB (chunks of 1.5,
        # 3, 6 and 8 MB: slower, slower, the same, and a peak of 385-411 MB).
        return pieces(paths, max_record_bytes, batch=batch, batch_bytes=BATCH_BYTES)
    # the analysis takes a second or more a game: a worker's task stays a batch of games
    return record_batches(read_records(paths, max_record_bytes), batch, BATCH_BYTES)


class _Transaction:
    """The load's open transaction: games go in until it holds `games` games or `size` bytes of
    staged rows, then it commits, and the next begins. A batch may be split between two, but a
    game never is: one call of `_write` writes each game whole.

    Transactions of exactly a row group of games let DuckDB write every full row group of the
    records' text once, compressed, straight into the file; a transaction that stopped short of
    one would copy its last part row group again when it commits.

    The batches are written a few at a time (`WRITE_BYTES` of staged rows): a DuckDB statement
    costs about a millisecond and each table registered for it half as much again, whatever its
    rows, and a batch of a plain load is five inserts of about 700 games."""

    def __init__(self, con: duckdb.DuckDBPyConnection, games: int, size: int, files: FileMap,
                 report: LoadReport, write_bytes: int) -> None:
        self.con, self.games, self.size, self.write_bytes = con, games, size, write_bytes
        self.files = files  # the input file whose records' text the batches take from it
        self.report = report
        self.open = False
        self.held = self.bytes = 0
        self.pending: list[tuple[dict[str, pa.Table], list[int]]] = []  # held, not yet written
        self.pending_bytes = 0

    def add(self, batch: Batch, keep: list[int]) -> None:
        """Add the batch's games at places `keep`, committing whenever the transaction is full."""
        # The tables' whole buffers, not their bytes in use (nbytes): the same here, where nothing
        # is sliced yet, and 20x quicker to add up.
        row_bytes = (sum(t.get_total_buffer_size() for t in batch.staged.values()) / max(len(batch.results), 1)
                     if batch.staged else 0)
        try:
            if keep and self.pending and _text_kind(self.pending[0][0]) != _text_kind(batch.staged):
                self.write()  # another file, or text carried rather than taken from the file
            while keep:
                self.begin()
                part, keep = keep[:self.games - self.held], keep[self.games - self.held:]
                self.pending.append((batch.staged, part))
                self.held += len(part)
                self.bytes += int(row_bytes * len(part))
                self.pending_bytes += int(row_bytes * len(part))
                if self.held >= self.games or self.bytes >= self.size:
                    self.commit()
                elif self.pending_bytes >= self.write_bytes:
                    self.write()
        except BaseException:
            self.rollback()
            raise

    def write(self) -> None:
        """Write what is held, in the open transaction."""
        if self.pending:
            pending, self.pending, self.pending_bytes = self.pending, [], 0
            _write(self.con, pending, self.report, self.files)

    def begin(self) -> None:
        """Begin a transaction, unless one is open."""
        if not self.open:
            self.con.execute("BEGIN TRANSACTION")
            self.open = True

    def commit(self) -> None:
        """Commit what the transaction holds, if anything."""
        if self.open:
            self.write()
            self.open = False
            self.held = self.bytes = 0
            self.con.execute("COMMIT")

    def rollback(self) -> None:
        """Drop what the transaction holds, if anything."""
        self.pending, self.pending_bytes = [], 0
        if self.open:
            self.open = False
            try:
                self.con.execute("ROLLBACK")
            except duckdb.Error:
                pass  # a failed COMMIT has already ended the transaction; the first error is the one to tell

    def stop_if(self, stop: BatchInterrupt) -> None:
        """At a batch boundary after Ctrl-C: keep the whole batches held, then stop."""
        if stop.requested:
            self.commit()
        stop.check()


class _Archive:
    """The archive a load writes, opened once, when `open` is first called: by the audit's pipeline
    as the workers start (checked_batches' `started`), or by the load before its first batch."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.con: duckdb.DuckDBPyConnection | None = None
        self.empty = False  # when it was opened

    def open(self) -> None:
        """Connect for writing and create the tables if they are missing (once)."""
        if self.con is not None:
            return
        con = connect(self.path, row_group_rows=ROW_GROUP_ROWS)
        try:
            _write_settings(con)
            init(con, self.path)
            self.empty = con.execute("SELECT count(*) FROM games").fetchall()[0][0] == 0
        except BaseException:
            con.close()
            raise
        self.con = con

    def close(self) -> None:
        """Close the connection, if it was opened."""
        if self.con is not None:
            try:
                self.con.close()
            except duckdb.Error:
                pass


def _write_settings(con: duckdb.DuckDBPyConnection) -> None:
    # Checkpoint at the end rather than every few transactions: each is still durable when it
    # commits, and the file is written once, smaller (measured: 57 against 73 MB for 200 MB of
    # records) and sooner.
    con.execute("SET checkpoint_threshold = '1GB'")
    con.execute(f"SET memory_limit = '{LOAD_MEMORY}'")
    # A transaction's last row group of each table is written part full; the checkpoint's vacuum
    # would rewrite it whole and leave its old blocks free inside the file (measured on 200 MB,
    # transactions of 4,000 games: a 71 MB file with 43 free blocks of 256 kB, against 61 MB and
    # none). Only a load that deleted rows (--replace) needs the vacuum, and gets it at the end.
    con.execute("SET max_vacuum_tasks = 0")
    # DuckDB's inserts on one thread: on a second they took more CPU for no less time, and that
    # CPU is the workers' (measured on 200 MB of rows staged before, inserts and commits: 4.96 s
    # and 4.74 s of CPU on two threads, 3.65 s and 3.65 s on one). The checkpoint at the end,
    # which compresses row groups in parallel, gets every thread back.
    con.execute("SET threads = 1")


def _store(archive: _Archive, batches: Iterator[Batch], replace: bool, progress: Callable[[int], None] | None,
           cross: CrossChecks | None, batch_games: int = TRANSACTION_GAMES,
           opened_as_workers_start: bool = False) -> LoadReport:
    """Insert batch after batch, `batch_games` games a transaction; with `cross`, run the checks
    across games and add what the end of the input finds (dealer succession) to the games it concerns.
    The archive opens first, unless `batches` opens it as its workers start."""
    report = LoadReport()
    added: set[str] = set()
    stop = BatchInterrupt()
    txn: _Transaction | None = None
    files = FileMap()
    try:
        with stop:
            if not opened_as_workers_start:
                archive.open()  # before any replay: a file in use is told at once
            batches = iter(batches)
            first = next(batches, None)
            archive.open()  # opened already; with no input at all, the workers never started
            con = archive.con
            # Empty when the load began: a game met again is a repeat the audit marks, never a stored one.
            fresh = cross is not None and archive.empty
            txn = _Transaction(con, batch_games, TRANSACTION_BYTES, files, report, WRITE_BYTES)
            for batch in itertools.chain([first] if first is not None else [], batches):
                txn.stop_if(stop)
                if cross is not None:
                    for r in batch.results:
                        cross.feed(r)
                txn.begin()
                if cross is None:
                    txn.write()  # the look-up finds the games of this load too: nothing marks their repeats
                keep = _insert(con, batch, replace, report, added, lookup=not fresh)
                txn.add(batch, keep)
                if progress:
                    progress(len(batch.results))
            txn.commit()
            con.execute("RESET threads")
            stop.check()
            if report.replaced:
                con.execute("RESET max_vacuum_tasks")
            if cross is not None:
                # A repeat is never present for the series checks; only the games added get their findings.
                _add_late_findings(con, [r for r in cross.finish() if r.id in added and repeat_mark(r.findings) is None])
            # The checkpoint closing would make, made here so that its failure (a full disk) is told.
            con.execute("CHECKPOINT")
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None  # the transaction in progress was rolled back
    except duckdb.Error as e:
        raise _write_error(archive.path, e) from None
    except RuntimeError as e:
        # DuckDB reports Ctrl-C during a statement as RuntimeError("Query interrupted").
        if "interrupted" in str(e).lower():
            raise KeyboardInterrupt from None
        raise
    finally:
        if txn is not None:
            txn.rollback()  # after a failure: nothing of the transaction it broke off
        close = getattr(batches, "close", None)
        if close is not None:
            close()  # ends the worker pool here, in order
        archive.close()
        files.close()
    return report


def finding_row(game_id: str, f: dict[str, Any]) -> tuple:
    """A finding (as `Finding.to_dict` gives it) as a row of the findings table."""
    return (game_id, f["code"], f["severity"], f["deal"], f["trick"], f["pass"], f["player"], f["card"], f["message"],
            json.dumps(f["evidence"], ensure_ascii=False))


def _add_late_findings(con: duckdb.DuckDBPyConnection, results: list[GameResult]) -> None:
    """Dealer succession is known only at the end of the input: add it to the games it concerns."""
    rows = [(r.id, f) for r in results for f in r.findings if f.cross_game]
    if not rows:
        return
    con.execute("BEGIN TRANSACTION")
    for gid, f in rows:
        con.execute("INSERT INTO findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", list(finding_row(gid, f.to_dict())))
        con.execute("UPDATE games SET breaches = breaches + 1 WHERE id = ?", [gid])
        con.execute("UPDATE payouts SET disputed = true WHERE game_id = ?", [gid])
    con.execute("COMMIT")


def archive_rows(results: list[GameResult]) -> dict[str, pa.Table]:
    """The archive's rows for replayed games (each id at most once), as `export --parquet` writes them.

    The same flattening and SQL as `load`, into a database in memory: what Spark's load runs per batch.
    """
    import pyarrow as pa
    tables = stage_tables(results)
    con = duckdb.connect(":memory:", config=dict(NO_EXTENSIONS))
    try:
        init(con)
        _write(con, [(tables, list(range(len(results))))], LoadReport())
        out = {}
        for name in TABLES:
            if name in ANALYSIS_TABLES:
                continue
            t = con.sql(f"SELECT * FROM {name}").to_arrow_table()
            # JSON columns come as an Arrow extension type: Parquet and Spark see the text.
            out[name] = pa.table([c.cast(c.type.storage_type) if isinstance(c.type, pa.ExtensionType) else c
                                  for c in t.columns],
                                 names=t.column_names)
        return out
    finally:
        con.close()


def _write_error(path: str, e: Exception) -> DatabaseError:
    """A one-line message for a failed write, saying what survived and what to do."""
    text = str(e).splitlines()[0]
    if re.search(r"No space left|File too large|disk is full|Could not write", text, re.I):
        return DatabaseError(f"{path}: the disk is full (or a file size limit was reached) while loading: {text}",
                             hint="the games committed before are intact; free some space and run the same load "
                                  "again to add the rest")
    if "Out of Memory" in text:
        return DatabaseError(f"{path}: a batch of games did not fit in the database's memory: {text}",
                             hint="the games committed before are intact; run the load again with a smaller --batch")
    return DatabaseError(f"{path}: {text}", hint="the games committed before are intact; run the load again")


def _insert(con: duckdb.DuckDBPyConnection, batch: Batch, replace: bool, report: LoadReport, added: set[str],
            lookup: bool = True) -> list[int]:
    """A batch, in the open transaction: skip repeats and games already there, refuse conflicts or
    delete what they replace; the places in the batch of the games to write (their ids go in `added`).

    Without `lookup` (an archive empty when the load began, whose repeats the audit marks) no
    game can be there already: the look-up, a scan of every game stored so far, is skipped.
    """
    import pyarrow as pa
    existing: dict[str, str] = {}
    if lookup:
        looked = [r.id for r in batch.results if r.status != "invalid"]
        con.register("_ids", pa.table({"id": pa.array(looked, type=pa.string())}))
        existing = dict(con.execute("SELECT g.id, g.content_hash FROM games g SEMI JOIN _ids USING (id)").fetchall())
        con.unregister("_ids")
    keep: list[int] = []  # places in the batch of the games to insert
    drop: list[str] = []
    ids: list[str] = []
    for n, r in enumerate(batch.results):
        if r.status == "invalid":
            report.invalid += 1
            report.invalid_sources.append(f"{r.source}: {r.findings[0].text() if r.findings else 'invalid record'}")
            continue
        repeat = repeat_mark(r.findings)
        if repeat is not None:  # the audit found this id earlier in the input
            if repeat.evidence.get("identical"):
                report.unchanged += 1
            else:
                report.conflicts.append(f"{r.id} ({r.source}): a different game with this id is earlier in the input")
            continue
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
        keep.append(n)
        ids.append(r.id)
    if drop:
        con.register("_drop", pa.table({"id": drop}))
        for name in STORED:
            key = "id" if name == "games" else "game_id"
            con.execute(f"DELETE FROM {name} WHERE {key} IN (SELECT id FROM _drop)")
        con.unregister("_drop")
    added.update(ids)
    return keep


@dataclass
class QueryResult:
    """Columns and rows of a query."""

    columns: list[str]
    rows: Iterable[tuple]  # a list, or an iterator when streamed (open_query)


QUERY_MEMORY = "1GB"
QUERY_THREADS = 2
DEFAULT_TIMEOUT = 60.0


def _refuse_other_files(path: str) -> None:
    """A file that is not a DuckDB database (SQLite's, say) is refused before DuckDB opens it, which
    would look for an extension to read it with."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return  # a new archive, or one DuckDB will say it cannot open
    if head and head[8:12] != b"DUCK":
        kind = "a SQLite database" if head.startswith(b"SQLite format 3") else "not a DuckDB file"
        raise DatabaseError(f"{path}: {kind}, not a foreman archive",
                            hint="give the .duckdb file that foreman load wrote (--db FILE)")


def read_archive(path: str) -> duckdb.DuckDBPyConnection:
    """The archive opened to read what foreman stored in it, trusting nothing else in the file:
    its views and macros are foreman's own again (made over them, in the connection's temporary
    schema), its stored tables must be tables, and the query sandbox holds (no file, no network,
    bounded memory). An archive someone sends may hold a view that reads local files."""
    con = connect(path, read_only=True)
    try:
        kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables "
                                 "WHERE table_catalog = current_database() AND table_schema = 'main'").fetchall())
        if kinds.get("plays") == "BASE TABLE" and "deal_facts" not in kinds:
            _sandbox(con)  # an earlier foreman's rows of plays: read as they are, in the sandbox
            return con
        wrong = [t for t in ("games", "deal_facts", "findings", "payouts", "claims") if kinds.get(t) != "BASE TABLE"]
        if wrong:
            raise DatabaseError(f"{path} is not a foreman archive: {wrong[0]!r} is not one of its tables")
        for name in ANALYSIS_TABLES:
            if kinds.get(name) != "BASE TABLE":  # an archive older than --analyze: empty ones stand in
                con.execute(_temporary(next(t for t in SCHEMA.split(";") if f"EXISTS {name} " in t)))
        con.execute(_temporary(UNFOLDED + VIEWS))
        _sandbox(con)
    except duckdb.Error as e:
        con.close()
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    except BaseException:
        con.close()
        raise
    return con


def _temporary(sql: str) -> str:
    """Definitions made in the connection's temporary schema, where they come before the file's."""
    return (sql.replace("CREATE OR REPLACE VIEW", "CREATE OR REPLACE TEMP VIEW")
               .replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO")
               .replace("CREATE TABLE IF NOT EXISTS", "CREATE TEMP TABLE"))


QUERY_PROCESS_BYTES = 1536 << 20  # what a query may add to the process's data: DuckDB's limit and room for rows


@contextmanager
def bounded_query_process() -> Iterator[None]:
    """While a query runs, cap the data this process may add (RLIMIT_DATA), and put the limit back
    after it (a program, or a test, that runs a query goes on with its own limit; children started
    meanwhile inherit the cap).

    DuckDB's memory_limit governs its buffers, not what a single expression allocates:
    `repeat('x', 2000000000)` reached 4 GB under a 1 GB limit. Past the cap an allocation fails,
    which DuckDB reports as out of memory (and Python as MemoryError): one line, not the machine's
    memory."""
    import resource
    before = resource.getrlimit(resource.RLIMIT_DATA)
    cap = _data_cap(before)
    if cap is not None:
        resource.setrlimit(resource.RLIMIT_DATA, (cap, before[1]))
    try:
        yield
    finally:
        if cap is not None:
            resource.setrlimit(resource.RLIMIT_DATA, before)


def _data_cap(limits: tuple[int, int]) -> int | None:
    """QUERY_PROCESS_BYTES above the data in use now, within the hard limit; None to set none."""
    import resource
    try:
        status = Path("/proc/self/status").read_text()
        data_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmData:"))
    except (OSError, StopIteration, ValueError):
        return None  # no /proc: the cap cannot be placed above what is in use
    soft, hard = limits
    cap = data_kb * 1024 + QUERY_PROCESS_BYTES
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    return cap if soft == resource.RLIM_INFINITY or soft > cap else None


def _sandbox(con: duckdb.DuckDBPyConnection) -> None:
    """Bound a query's memory and threads, forbid files and spilling, then lock the settings."""
    con.execute(f"SET memory_limit = '{QUERY_MEMORY}'")
    con.execute(f"SET threads = {QUERY_THREADS}")
    con.execute("SET enable_progress_bar = false")  # its bar would land in the output
    con.execute("SET temp_directory = ''")  # no spilling to disk (before file access is closed)
    # Nor any other file: no COPY TO, no ATTACH, no reads of files beside the archive.
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")  # a query's own SET is refused from here on


def query(path: str, sql: str, timeout: float = DEFAULT_TIMEOUT) -> QueryResult:
    """Run SQL on a read-only, locked-down connection; stopped after `timeout` seconds."""
    with open_query(path, sql, timeout) as res:
        return QueryResult(res.columns, list(res.rows))


FETCH_ROWS = 2048  # rows fetched at a time from a streaming result


@contextmanager
def open_query(path: str, sql: str, timeout: float = DEFAULT_TIMEOUT, whole: bool = False) -> Iterator[QueryResult]:
    """Run SQL as `query` does, the rows streamed: `rows` is an iterator, to be read inside the block.

    The timeout bounds the wait for the first rows (a query that computes for long without an
    answer); once rows come, the reader sets the pace, so a long result streams whole. With
    `whole` (the table, which also counts the rows it does not show) it bounds the whole run.
    """
    import threading
    if not sql.strip().strip(";").strip():
        raise UsageError("no SQL statement given", hint="e.g. foreman query \"SELECT * FROM player_summary\"")
    con = read_archive(path)
    timer = threading.Timer(timeout, con.interrupt)
    try:
        with _query_errors(timeout):
            statements = con.extract_statements(sql)
            if len(statements) > 1:  # DuckDB would run them all and show only the last one's rows
                raise UsageError(f"the SQL holds {len(statements)} statements; give one at a time",
                                 hint="run 'foreman query' once per statement")
            timer.start()
            cur = con.execute(sql)
            if cur is None or cur.description is None:
                yield QueryResult([], [])
                return
            first = cur.fetchmany(1)
            if not whole:
                timer.cancel()
            yield QueryResult([d[0] for d in cur.description], _stream(cur, first))
    finally:
        timer.cancel()
        con.close()


FETCH_BYTES = 16 << 20  # about what one fetch of rows may hold: a few huge rows are fetched a few at a time


def _stream(cur: duckdb.DuckDBPyConnection, first: list[tuple]) -> Iterator[tuple]:
    """The rows, fetched in batches sized to hold about FETCH_BYTES (at most FETCH_ROWS rows)."""
    rows, size = first, 1
    while rows:
        yield from rows
        per_row = max(1, sum(_row_bytes(r) for r in rows) // len(rows))
        size = max(1, min(FETCH_ROWS, size * 2, FETCH_BYTES // per_row))
        rows = cur.fetchmany(size)


def _row_bytes(row: tuple) -> int:
    return sum(len(v) if isinstance(v, (str, bytes)) else 8 for v in row)


@contextmanager
def _query_errors(timeout: float) -> Iterator[None]:
    """DuckDB's errors of a query as one-line messages with a hint that fits."""
    try:
        yield
    except duckdb.InterruptException:
        raise DatabaseError(f"the query ran longer than {timeout:g} s and was stopped",
                            hint="narrow it (WHERE, LIMIT) or give more time with --timeout SECONDS") from None
    except duckdb.Error as e:
        msg = str(e).splitlines()[0]
        if "lock_configuration" in msg or "configuration has been locked" in msg.lower():
            raise DatabaseError(f"foreman query keeps its limits: {msg}",
                                hint=f"a query may use {QUERY_MEMORY} and {QUERY_THREADS} threads; "
                                     "settings cannot be changed") from None
        if "read-only" in msg or isinstance(e, duckdb.PermissionException):
            raise DatabaseError(f"foreman query only reads the archive: {msg}",
                                hint="queries cannot change the archive or touch other files; "
                                     "use foreman load to add games, foreman export for files") from None
        raise DatabaseError(f"query failed: {msg}", hint="the tables and views are in docs/schema.md") from None


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
        cur = con.execute(sql, params)
        return QueryResult([d[0] for d in cur.description], cur.fetchall())

    try:
        if player is not None and not con.execute("SELECT 1 FROM game_players WHERE player = $p LIMIT 1",
                                                  params).fetchone():
            known = [r[0] for r in con.execute("SELECT DISTINCT player FROM game_players ORDER BY player").fetchall()]
            raise UsageError(f"--player {player!r}: no such player in {path}",
                             hint=f"known: {', '.join(known[:30])}{' ...' if len(known) > 30 else ''}"
                             if known else "the archive holds no games yet")
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


def dealt_hands(path: str):
    """Each stored deal as dealt (fairness.Dealt), in game and deal order."""
    from .cards import CARD_OF
    from .fairness import Dealt
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
                yield Dealt(gid, n, tuple(players), dealer, tuple(tuple(CARD_OF[c] for c in h) for h in hands),
                            tuple(CARD_OF[c] for c in kitty))
    except duckdb.CatalogException as e:
        raise DatabaseError(f"{path} is not a foreman archive: {str(e).splitlines()[0]}") from None
    finally:
        con.close()


EXPORT_ROWS = 65536  # rows a batch while exporting: memory stays flat whatever a table's size


def export_parquet(path: str, out_dir: str) -> dict[str, int]:
    """Write every table as a Parquet dataset, DIR/<table>/data.parquet; return rows per table.

    The archive is read sandboxed (read_archive), so DuckDB itself writes no file: the rows come
    out as Arrow batches and pyarrow writes each file, whole or not at all."""
    con = read_archive(path)
    rows = {}
    try:
        for name in TABLES:
            folder = Path(out_dir) / name
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise OutputError(f"{folder}: {e.strerror or e}") from None
            write_atomically(folder / "data.parquet", lambda temporary, table=name: rows.update(
                {table: _write_parquet(con, table, temporary)}))
    except duckdb.Error as e:
        raise DatabaseError(f"export failed: {str(e).splitlines()[0]}") from None
    finally:
        con.close()
    return rows


def _write_parquet(con: duckdb.DuckDBPyConnection, table: str, target: str) -> int:
    """One table's rows into a Parquet file, batch by batch; how many rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    count = 0
    with con.sql(f"SELECT * FROM {table}").to_arrow_reader(batch_size=EXPORT_ROWS) as reader, \
            pq.ParquetWriter(target, _plain_schema(reader.schema)) as writer:
        plain = writer.schema
        for batch in reader:
            writer.write_batch(pa.RecordBatch.from_arrays(
                [c.cast(c.type.storage_type) if isinstance(c.type, pa.ExtensionType) else c for c in batch.columns],
                schema=plain))
            count += batch.num_rows
    return count


def _plain_schema(schema):
    """JSON columns come as an Arrow extension type: Parquet and its readers see the text."""
    import pyarrow as pa
    return pa.schema([f.with_type(f.type.storage_type) if isinstance(f.type, pa.ExtensionType) else f for f in schema])


def counts(path: str) -> dict[str, int]:
    """Rows per table."""
    con = connect(path, read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        con.close()
