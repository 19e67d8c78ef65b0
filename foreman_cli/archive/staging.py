"""Staging: a batch of replayed games turned into Arrow columns, one row a game, a deal, a finding, a payout."""

from __future__ import annotations

import array
import itertools
import json
import os
import sys
from datetime import datetime, timezone
from decimal import Decimal
from functools import lru_cache
from typing import Any, TYPE_CHECKING

from .. import core, money, records
from ..audit import no_cyclic_gc
from ..cards import CARD_OF
from ..chunks import ChunkText, FileMap, FileSeen
from ..results import GameResult

if TYPE_CHECKING:
    import pyarrow as pa


BATCH_GAMES = 500  # games replayed and staged together (a worker's task), unless plain JSON Lines go in chunks

# A batch also ends at this much record text, so a batch of very long games stays small.
BATCH_BYTES = 8 * 1024 * 1024

# Rows of every game go through staging tables, one row a game and one a deal (with its cards as
# lists, stored as they are in deal_facts). Python touches each deal once, not each card
# (docs/scale.md: per-row Python work is what costs).
_GAME_COLS = ("id", "content_hash", "source", "status", "winner", "deals_played", "players", "stake", "stake_text",
              "currency", "played_at", "series_id", "series_seq", "quota", "target", "rules", "breaches", "raw",
              "loaded_at")

_DEAL_SCALARS = ("game_id", "deal", "dealer", "dealer_seat", "decided", "tricks_played", "quotas", "won", "winners",
                 "recorded")

_DEAL_LISTS = ("kitty", "discards", "hands", "pass_from", "pass_to", "pass_card", "pass_returned", "leaders", "cards")

_FINDING_COLS = ("game_id", "code", "severity", "deal", "trick", "pass", "player", "card", "message", "evidence")

_CLAIM_COLS = ("game_id", "deal", "player", "accepted", "first_trick", "tricks", "claim_rule", "holds", "statement")

_COST_COLS = ("game_id", "deal", "trick", "player", "card", "sure_before", "best", "cost")

_ACCURACY_COLS = ("game_id", "deal", "player", "cards_analysed", "cost", "accuracy", "exact", "turned_trick", "turned_by",
                  "par", "gifts", "luck", "claim")

_PAYOUT_COLS = ("game_id", "player", "net", "net_text", "currency", "short_of_quota", "winner", "disputed")


def unfolded_rows(deals: pa.Table | None) -> dict[str, int]:
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

    def amount(self, value: Decimal) -> tuple[str, Decimal | None]:
        """An amount's exact text and its value for a DECIMAL(38, 10) column (_fits), made once
        for each amount object of the batch: a game's nets are the settlement's cached objects,
        shared by every game of the same stake and outcome."""
        made = self._amounts.get(id(value))
        if made is None or made[0] is not value:
            # The object is kept with its text, so its id cannot be reused while the batch lives.
            made = self._amounts[id(value)] = (value, money.fmt(value), _fits(value))
        return made[1], made[2]

    def rules_text(self, rules: dict[str, Any] | None) -> str:
        """The rules as JSON, made once for each rules object of the batch: games with the same
        rules share one (HouseRules.as_dict)."""
        made = self._rules.get(id(rules))
        if made is None:
            # The object is kept with its text, so its id cannot be reused while the batch lives.
            made = self._rules[id(rules)] = (rules, json.dumps(rules))
        return made[1]


class _Rows:
    """A staging table's rows as tuples, turned into columns once the batch is whole (cheaper than
    an append a value)."""

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
    offsets, all as bytes: Arrow takes them as they are, without a conversion a value."""

    __slots__ = ("nested", "flat", "inner", "outer")

    def __init__(self, nested: bool) -> None:
        self.nested = nested  # a list of lists a deal (hands, tricks)
        # flat: the codes; inner: where each list (of a deal, or of a hand or trick) ends in flat;
        # outer, for lists of lists: where each deal's lists end in inner (native int32 offsets)
        self.flat, self.inner, self.outer = code_column()

    def arrow(self) -> pa.Array:
        import pyarrow as pa
        codes = pa.Array.from_buffers(pa.uint8(), len(self.flat), [None, pa.py_buffer(self.flat)])
        array = pa.ListArray.from_arrays(_offsets(self.inner), codes)
        return pa.ListArray.from_arrays(_offsets(self.outer), array) if self.nested else array


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

    # What a record of the play leaves out is stored as empty lists; `recorded` says which (recorded_parts).
    add(kitty, map(card, deal.kitty or ()))
    add(discards, map(card, deal.discards or ()))
    for p in players:
        add(hands, map(card, deal.hands[p] if deal.hands is not None else ()))
    hands[2].extend(_offset(len(hands[1]) // 4 - 1))
    passes = deal.passes or ()
    add(pass_from, (seat(x.from_) for x in passes))
    add(pass_to, (seat(x.to) for x in passes))
    add(pass_card, (card(x.card) for x in passes))
    add(pass_returned, (card(x.returned) for x in passes))
    played = deal.tricks[:n_tricks]
    add(leaders, (seat(t.leader) for t in played))
    for t in played:
        add(tricks, map(card, t.cards))
    tricks[2].extend(_offset(len(tricks[1]) // 4 - 1))


ALL_RECORDED = 15


def recorded_parts(deal) -> int:
    """What a deal records, as the archive's `recorded` bits: 1 hands, 2 kitty, 4 passes, 8 discards
    (15: a full record; less: a record of the play)."""
    return ((deal.hands is not None) | (deal.kitty is not None) << 1 | (deal.passes is not None) << 2
            | (deal.discards is not None) << 3)


def _flatten(batch: _Batch, result: GameResult, now: datetime, order: int) -> None:
    """Add one game to the staging columns."""
    data = result.data
    gid = result.id
    players = result.players
    stake_text, stake = batch.amount(result.stake) if result.stake is not None else (None, None)
    findings = result.findings  # none, for most games: no generator made for them
    breaches = sum(f.severity == "error" for f in findings) if findings else 0
    deals = result.deals
    # A won game's deals end at the deciding one (the replay skips any recorded after): its number
    # without deals_played's search for it.
    played = deals[-1].number if result.status == "won" and deals[-1].decided else result.deals_played
    series = result.series
    batch.games.append((
        gid, result.fingerprint.hex(), result.source, result.status, result.winner, played, players, stake, stake_text,
        result.currency, records.utc_instant(result.played_at), series[0] if series else None,
        series[1] if series else None, data.rules.quota, data.rules.target,
        batch.rules_text(result.rules), breaches, result.text, now, order))
    add_deal = batch.deals.append
    lists = batch.deal_flat
    fast_codes = core.deal_codes or deal_codes
    blocks = data.blocks  # a game the compiled lane read: its deals as codes already
    from_blocks = core.lane_codes  # blocks exist only where the compiled lane read the record
    for dr in deals:
        deal = data.deals[dr.number - 1] if blocks is None else None
        recorded = ALL_RECORDED if deal is None else recorded_parts(deal)
        add_deal((gid, dr.number, players[dr.dealer], dr.dealer, dr.decided, dr.tricks_played, dr.quotas, dr.tricks,
                  dr.winners, recorded, order))
        # the tricks until play stopped: not those after the game was won
        if blocks is not None:
            from_blocks(blocks, dr.number - 1, len(dr.winners), lists)
        else:
            codes = fast_codes if recorded == ALL_RECORDED else deal_codes
            codes(deal, players, data.seat, CARD_OF, len(dr.winners), lists)
        claim = dr.claim
        if claim is not None:
            batch.claims.append((gid, dr.number, players[claim.by], claim.accepted, claim.first_trick, claim.tricks,
                                 claim.rule, claim.holds, claim.statement, order))
    for f in findings:
        batch.findings.append((gid, f.code, f.severity, f.deal, f.trick, f.pass_, f.player, f.card, f.message,
                           json.dumps(f.evidence, ensure_ascii=False), order))
    if result.net is not None:
        short = set(result.short_of_quota)
        disputed = bool(findings) and bool(result.disputes)
        add_payout, currency, winner = batch.payouts.append, result.currency, result.winner
        amount = batch.amount
        for p, v in result.net.items():
            text, fitted = amount(v)
            add_payout((gid, p, fitted, text, currency, p in short, p == winner, disputed, order))


def _flatten_analysis(batch: _Batch, result: GameResult, budget: int, order: int) -> None:
    """Add one game's play analysis: a row a card analysed, a row a player of each deal."""
    from ..analysis import analyze_game
    from ..cards import CANONICAL
    players = result.players
    for d in analyze_game(result, budget=budget).deals:
        for p in d.plays:
            best = None if p.best is None else [CANONICAL[c] for c in p.best]
            batch.costs.append((result.id, d.deal, p.trick, players[p.seat], CANONICAL[p.card], p.sure_before[p.seat],
                                best, p.cost, order))
        turned = (d.turned[0], players[d.turned[1]]) if d.turned else (None, None)
        for s in range(3):
            cards, cost, acc = d.player_totals(s)
            sp = d.split[s] if d.split else None
            split = (sp.par, sp.gifts, sp.luck, sp.claim) if sp else (None, None, None, None)
            batch.accuracy.append((result.id, d.deal, players[s], cards, cost, acc, d.exact, *turned, *split, order))


@lru_cache(maxsize=1)
def _arrow_types() -> dict[str, Any]:
    """The Arrow type of each staging column (pyarrow loads only for the commands that write)."""
    import pyarrow as pa
    return {
        "stake": pa.decimal128(38, 10), "net": pa.decimal128(38, 10), "players": pa.list_(pa.string()),
        "quotas": pa.list_(pa.int32()), "won": pa.list_(pa.int32()), "winners": pa.list_(pa.int32()),
        "recorded": pa.uint8(),
        "played_at": pa.string(), "loaded_at": pa.timestamp("us", tz="UTC"),
        "deal": pa.int32(), "dealer_seat": pa.int32(), "tricks_played": pa.int32(), "deals_played": pa.int32(),
        "series_seq": pa.int32(), "target": pa.int32(), "breaches": pa.int32(), "trick": pa.int32(), "pass": pa.int32(),
        "raw": pa.string(), "rules": pa.string(), "evidence": pa.string(), "player": pa.string(),
        "card": pa.string(), "currency": pa.string(), "series_id": pa.string(), "stake_text": pa.string(),
        "sure_before": pa.int32(), "best": pa.list_(pa.string()), "cost": pa.int32(), "cards_analysed": pa.int32(),
        "accuracy": pa.float64(), "exact": pa.bool_(), "turned_trick": pa.int32(), "turned_by": pa.string(),
        "first_trick": pa.int32(), "tricks": pa.int32(), "accepted": pa.bool_(), "holds": pa.bool_(),
        "claim_rule": pa.string(), "statement": pa.string(),
        "par": pa.int32(), "gifts": pa.int32(), "luck": pa.int32(), "claim": pa.int32(),
        "_n": pa.int32(),
    }

DECIMAL_WHOLE_DIGITS = 28  # DECIMAL(38, 10)


def _fits(value: Decimal | None) -> Decimal | None:
    """An amount rounded to 10 places for a DECIMAL(38, 10) column, or None when it is too large.

    A value with more than 10 decimal places keeps its exact text in *_text; the column rounds.
    One of more than 28 whole digits does not fit DECIMAL(38, 10) at all: the column is null and
    the text column holds it exactly."""
    if value is None or value.adjusted() >= DECIMAL_WHOLE_DIGITS:
        return None
    return value.quantize(money.TEN_PLACES, context=money.ROUNDING)


def _arrow(cols: dict[str, list]) -> pa.Table:
    import pyarrow as pa
    arrays = {}
    for name, values in cols.items():
        arrow_type = _arrow_types().get(name)
        if name == "raw":
            arrays[name] = _long_text(values)
        else:
            arrays[name] = pa.array(values, type=arrow_type) if arrow_type is not None else pa.array(values)
    return pa.table(arrays)


def _long_text(values: list[str | None]) -> pa.Array:
    """Long strings (the records' text) as an Arrow string array built from one buffer of their
    UTF-8 and its offsets, not a conversion a string (str.encode has checked them: a lone surrogate raises)."""
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
    return games.replace_schema_metadata({_TEXT_FILE: os.fsencode(texts.source),  # a name's bytes, UTF-8 or not
                                          _TEXT_SEEN: f"{seen.device} {seen.inode} {seen.size} {seen.mtime_ns}"})

_TEXT_FILE, _TEXT_SEEN = b"foreman.text_file", b"foreman.text_seen"


def _text_views(data, places: pa.StructArray) -> tuple[pa.Array, int, int]:
    """The strings at `places` (offsets and lengths) in `data` (the file's map) as an Arrow
    string_view array over it, copying none, and the range of data it spans: the records' text is
    most of what a load's workers would otherwise send back."""
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


def part_rows(tables: dict[str, pa.Table], keep: list[int], files: FileMap | None,
              placed: list[tuple[FileSeen, int, int]]) -> dict[str, pa.Table]:
    """A batch's staged tables cut to the games at places `keep`, their text taken from the file
    where it is there (its range appended to `placed`)."""
    every = len(keep) == len(tables["_games"])  # the usual case: nothing to drop
    tables = {name: (t if every else kept_rows(t, keep)).drop_columns(["_n"]) for name, t in tables.items()}
    games = tables["_games"]
    meta = games.schema.metadata or {}
    if _TEXT_FILE in meta:  # the text is in the file, where the records lie: viewed, never copied
        if files is None:
            raise ValueError("the games' text is in their file, and there is no FileMap to take it from")
        seen = FileSeen(*map(int, meta[_TEXT_SEEN].split()))
        data = files.text(os.fsdecode(meta[_TEXT_FILE]), seen)
        views, lo, hi = _text_views(data, games["raw"].combine_chunks())
        tables["_games"] = games.set_column(_GAME_COLS.index("raw"), "raw", views).replace_schema_metadata(None)
        placed.append((seen, lo, hi))
    return tables


def joined_tables(tables: list[pa.Table]) -> pa.Table:
    """The tables' rows, chunks side by side (copying none); a column of an empty batch may be
    typed null (_arrow), and a null column takes its type from the others."""
    import pyarrow as pa
    rows = [t for t in tables if t.num_rows]
    return pa.concat_tables(rows, promote_options="default") if rows else tables[0]


def text_kind(tables: dict[str, pa.Table]) -> tuple:
    """What parts written together must share: their games' columns and the file their text is in."""
    games = tables["_games"]
    return games.schema.remove_metadata(), (games.schema.metadata or {}).get(_TEXT_FILE)


def kept_rows(table: pa.Table, keep: list[int]) -> pa.Table:
    """The staged rows of the games at places `keep` (ascending) of their batch.

    A table's rows are in the order of their games' places ("_n", which _Batch appends in order),
    so a run of places (a batch split between two transactions) is a slice, which copies nothing.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    order = table["_n"]
    if keep[-1] - keep[0] == len(keep) - 1:
        start = pc.sum(pc.less(order, keep[0])).as_py() or 0
        return table.slice(start, (pc.sum(pc.less_equal(order, keep[-1])).as_py() or 0) - start)
    return table.filter(pc.is_in(order, value_set=pa.array(keep, type=pa.int32())))


def stage_tables(results: list[GameResult], analyze: int | None = None,
                 texts: ChunkText | None = None, analysed: frozenset[str] = frozenset()) -> dict[str, pa.Table]:
    """Flatten a batch of replayed games into Arrow staging tables (one row a game, a deal, ...).

    The pipeline's stage for `load` (audit.checked_batches runs it where the games were
    replayed). With `analyze` (a budget in nodes for each search) every deal is analysed too (analysis.py).
    With `texts` (where the records lie in their file, one span a result) the games' text is
    staged as those places, for the reading process to take from the file (_text_views).
    A game whose content hash is in `analysed` has its analysis in the archive already: not again.
    """
    batch = _Batch()
    now = datetime.now(timezone.utc)
    spans: list[tuple[int, int] | None] = []
    with no_cyclic_gc():
        for n, r in enumerate(results):
            if r.status != "invalid" and r.data is not None:
                _flatten(batch, r, now, n)
                if texts is not None:
                    spans.append(texts.spans[n])
                if analyze is not None and r.fingerprint.hex() not in analysed:
                    _flatten_analysis(batch, r, analyze, n)
        placed = texts is not None and None not in spans
        staged = [("_games", batch.games), ("_claims", batch.claims), ("_findings", batch.findings),
                  ("_payouts", batch.payouts)]
        if analyze is not None:
            staged += [("_play_costs", batch.costs), ("_deal_accuracy", batch.accuracy)]
        tables = {name: _arrow(rows.columns(drop="raw" if placed and name == "_games" else None))
                  for name, rows in staged}
        if placed:
            tables["_games"] = _text_places(tables["_games"], texts, spans)
        deals = _arrow(batch.deals.columns())
        for name, codes in batch.deal_lists.items():
            deals = deals.append_column(name, codes.arrow())
        tables["_deals"] = deals
        return tables


def finding_row(game_id: str, finding: dict[str, Any]) -> tuple:
    """A finding (as `Finding.to_dict` gives it) as a row of the findings table."""
    return (game_id, finding["code"], finding["severity"], finding["deal"], finding["trick"], finding["pass"],
            finding["player"], finding["card"], finding["message"], json.dumps(finding["evidence"], ensure_ascii=False))
