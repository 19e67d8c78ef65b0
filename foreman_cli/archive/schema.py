"""The archive's schema: its tables and views, and opening a DuckDB file as an archive."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import duckdb

from ..cards import CANONICAL
from ..errors import DatabaseError
from ..words import shown_text, undecoded_at, undecoded_byte

DEFAULT_DB = "foreman.duckdb"

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
-- What each deal records (1 hands, 2 kitty, 4 passes, 8 discards): 15 a full record; an earlier
-- foreman's archive gains the column, its deals all full.
ALTER TABLE deal_facts ADD COLUMN IF NOT EXISTS recorded UTINYINT DEFAULT 15;
CREATE TABLE IF NOT EXISTS findings (game_id VARCHAR, code VARCHAR, severity VARCHAR, deal INTEGER,
    trick INTEGER, pass INTEGER, player VARCHAR, card VARCHAR, message VARCHAR, evidence JSON);
CREATE TABLE IF NOT EXISTS claims (game_id VARCHAR, deal INTEGER, player VARCHAR, accepted BOOLEAN,
    first_trick INTEGER, tricks INTEGER, claim_rule VARCHAR, holds BOOLEAN, statement VARCHAR);
CREATE TABLE IF NOT EXISTS play_costs (game_id VARCHAR, deal INTEGER, trick INTEGER, player VARCHAR, card VARCHAR,
    sure_before INTEGER, best VARCHAR[], cost INTEGER);
CREATE TABLE IF NOT EXISTS deal_accuracy (game_id VARCHAR, deal INTEGER, player VARCHAR, cards INTEGER, cost INTEGER,
    accuracy DOUBLE, exact BOOLEAN, turned_trick INTEGER, turned_by VARCHAR);
-- The split of a player's deal (docs/analysis.md, "Luck and skill"); an earlier archive gains the
-- columns, null: its deals were analysed before foreman split them.
ALTER TABLE deal_accuracy ADD COLUMN IF NOT EXISTS par INTEGER;
ALTER TABLE deal_accuracy ADD COLUMN IF NOT EXISTS gifts INTEGER;
ALTER TABLE deal_accuracy ADD COLUMN IF NOT EXISTS luck INTEGER;
ALTER TABLE deal_accuracy ADD COLUMN IF NOT EXISTS claim INTEGER;
CREATE TABLE IF NOT EXISTS payouts (game_id VARCHAR, player VARCHAR, net DECIMAL(38, 10), net_text VARCHAR,
    currency VARCHAR, short_of_quota BOOLEAN, winner BOOLEAN, disputed BOOLEAN);
"""

# A deal is stored once, its cards as lists (deal_facts); seats, passes, tricks and plays are views
# that unfold it, so a load does not write the same cards twice.
UNFOLDED = """
CREATE OR REPLACE MACRO card_token(code) AS ([CARD_TOKENS])[code + 1];

CREATE OR REPLACE VIEW game_players AS
SELECT id AS game_id, CAST(s - 1 AS INTEGER) AS seat, players[s] AS player FROM games, range(1, 4) r(s);

CREATE OR REPLACE VIEW deals AS
SELECT game_id, deal, dealer, decided, tricks_played,
       CASE WHEN recorded & 2 = 2 THEN list_transform(kitty, lambda c: card_token(c)) END AS kitty,
       CASE WHEN recorded & 8 = 8 THEN list_transform(discards, lambda c: card_token(c)) END AS discards,
       CASE WHEN recorded = 15 THEN 'full' ELSE 'play-only' END AS record,
       recorded & 1 = 1 AS hands_recorded, recorded & 4 = 4 AS passes_recorded
FROM deal_facts;

CREATE OR REPLACE VIEW deal_players AS
SELECT d.game_id, d.deal, g.players[s] AS player, CAST(s - 1 AS INTEGER) AS seat,
       ['D', 'L', 'R'][(s - 1 - d.dealer_seat + 3) % 3 + 1] AS role, d.quotas[s] AS quota, d.won[s] AS tricks,
       d.won[s] - d.quotas[s] AS outcome, d.won[s] >= d.quotas[s] AS made_quota,
       CASE WHEN d.recorded & 1 = 1 THEN list_transform(d.hands[s], lambda c: card_token(c)) END AS hand
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

CREATE OR REPLACE VIEW player_luck AS
WITH split AS (
    SELECT a.player, a.luck, a.cost, a.gifts, a.claim, a.par - avg(a.par) OVER (PARTITION BY dp.role) AS above_role
    FROM deal_accuracy a JOIN deal_players dp USING (game_id, deal, player) WHERE a.par IS NOT NULL)
SELECT player, count(*) AS deals, sum(luck) AS luck, -sum(cost) AS skill, sum(gifts) AS gifts,
       coalesce(sum(claim), 0) AS claims, round(avg(luck), 3) AS mean_luck, round(-avg(cost), 3) AS mean_skill,
       round(avg(above_role), 3) AS mean_luck_vs_role
FROM split GROUP BY player;

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
    if path == "":  # an empty shell variable: not the default archive in whatever folder this is
        raise DatabaseError("--db '': an empty name names no archive",
                            hint="--db names the archive's file, e.g. club.duckdb")
    return path or os.environ.get("FOREMAN_DB") or DEFAULT_DB


def connect(path: str, read_only: bool = False, row_group_rows: int | None = None) -> duckdb.DuckDBPyConnection:
    """Open the archive, turning DuckDB's errors into one-line messages; with `row_group_rows`,
    for writing in row groups of that many rows."""
    if (at := undecoded_at(path)) is not None:  # DuckDB takes a file's name as UTF-8 text only
        raise DatabaseError(f"{shown_text(path)}: DuckDB cannot open a file whose name is not UTF-8 text "
                            f"(the byte {undecoded_byte(path, at):#04x})",
                            hint="rename the file, or give --db a UTF-8 name")
    if read_only and not Path(path).exists():
        raise DatabaseError(f"{path}: no such database", hint="load games first: foreman load PATH --db FILE")
    _refuse_other_files(path)
    if Path(path).is_dir():
        raise DatabaseError(f"{path}: a folder, not an archive", hint="--db names the archive's file, e.g. club.duckdb")
    if not Path(path).parent.is_dir():
        raise DatabaseError(f"{path}: there is no folder {Path(path).parent}",
                            hint="make the folder first, or give --db a file in one that exists")
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
    _hash_as_foreman_does(con)
    con.execute(UNFOLDED)
    con.execute(VIEWS)
    con.execute("COMMIT")


CONTENT_HASH = "SHA-256 of the record text as read, its first 16 bytes in hex"


def _hash_as_foreman_does(con: duckdb.DuckDBPyConnection) -> None:
    """An archive whose games were hashed otherwise (BLAKE2b, before 2026-12) hashed again from
    their stored text, once, so a load finds its games unchanged and its analyses done."""
    said = con.execute("SELECT comment FROM duckdb_columns() WHERE database_name = current_database() "
                       "AND table_name = 'games' AND column_name = 'content_hash'").fetchall()
    if said == [(CONTENT_HASH,)]:
        return
    con.execute("UPDATE games SET content_hash = left(sha256(raw), 32) WHERE raw IS NOT NULL")
    con.execute(f"COMMENT ON COLUMN games.content_hash IS '{CONTENT_HASH}'")


def _refuse_other_files(path: str) -> None:
    """A file that is not a DuckDB database (SQLite's, say) is refused before DuckDB opens it, which
    would look for an extension to read it with."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        head = b""  # a new archive, or one DuckDB will say it cannot open
    from ..reader import SUFFIXES
    if not head and path.endswith(SUFFIXES):  # a slip: the records' name given as the archive's
        raise DatabaseError(f"{path}: a name foreman reads records from, not one for an archive",
                            hint="name the archive .duckdb (--db FILE), and give the records as PATH")
    if head and head[8:12] != b"DUCK":
        kind = "a SQLite database" if head.startswith(b"SQLite format 3") else "not a DuckDB file"
        raise DatabaseError(f"{path}: {kind}, not a foreman archive",
                            hint="give the .duckdb file that foreman load wrote (--db FILE)")


def counts(path: str) -> dict[str, int]:
    """Rows per table."""
    con = connect(path, read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        con.close()
