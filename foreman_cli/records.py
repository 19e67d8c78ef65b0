"""The foreman/1 and foreman/1.1 record: pydantic models (the contract and JSON Schema) and the parse into ints."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

import msgspec
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import cards as C
from . import money
from .rules import HouseRules

FORMAT = "foreman/1"
FORMAT_1_1 = "foreman/1.1"
FORMATS = (FORMAT, FORMAT_1_1)
AMOUNT_MAX = 40
# The shape of a card token in either notation; which ranks are allowed depends on
# `card_notation` and is checked when the record is turned into ints (with a clear message).
CARD_PATTERN = r"^(?:10|[2-9TJQKABDtjqkabd])[SHDCshdc♠♥♦♣]$"
ID_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"
AMOUNT_PATTERN = r"^[0-9]+(?:\.[0-9]+)?$"


def _iso_datetime(v: str) -> str:
    try:
        datetime.fromisoformat(v)
    except ValueError:
        raise ValueError(f"{v!r} is not an ISO 8601 date and time, e.g. 2026-11-29T20:15:00+00:00") from None
    if "T" not in v and " " not in v:
        raise ValueError(f"{v!r} has no time of day; write e.g. {v}T20:15:00+00:00")
    return v


CardToken = Annotated[str, Field(pattern=CARD_PATTERN, description="rank then suit, e.g. 10S, QH, AD, 2C")]
Name = Annotated[str, Field(min_length=1, max_length=200)]
Amount = Annotated[str, Field(pattern=AMOUNT_PATTERN, max_length=AMOUNT_MAX,
                              description="a non-negative decimal string: digits, optional decimal part")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class Pass(_Strict):
    """One pass: the giver hands `card` to the receiver, who gives back `returned`."""

    from_: Name = Field(alias="from")
    to: Name
    card: CardToken
    returned: CardToken


class Trick(_Strict):
    """One trick: its leader and the cards in clockwise play order starting with him."""

    leader: Name
    cards: list[CardToken]


class Claim(_Strict):
    """(foreman/1.1) After the recorded tricks, `by` claimed every remaining trick of the deal."""

    by: Name
    accepted: bool
    statement: str | None = None


class Deal(_Strict):
    """One deal, as dealt and as played."""

    dealer: Name
    hands: dict[Name, list[CardToken]]
    kitty: list[CardToken]
    passes: list[Pass]
    discards: list[CardToken]
    tricks: list[Trick]
    claim: Claim | None = None


class Series(_Strict):
    """The games of one evening or club series, in order."""

    id: Annotated[str, Field(min_length=1, max_length=200)]
    seq: Annotated[int, Field(ge=1, le=10**9)]


class Rules(_Strict):
    """House options; absent keys take the defaults, a value may not be null."""

    quota: Literal["8-5-3", "9-5-2"] = "8-5-3"
    target: Annotated[int, Field(ge=1, le=16)] = 12
    return_rule: Literal["highest", "higher"] = "highest"
    kitty: Literal["swap", "pickup"] = "swap"
    deal_rotation: Literal["left", "free"] = "left"
    next_dealer: Literal["winner-or-loser", "winner", "loser", "free"] = "winner-or-loser"
    claim_rule: Literal["any-order", "best-play"] = "any-order"


class Payment(_Strict):
    """One payment the table wrote down."""

    from_: Name = Field(alias="from")
    to: Name
    amount: Amount

    @model_validator(mode="after")
    def _not_to_self(self) -> "Payment":
        if self.from_ == self.to:
            raise ValueError(f"a payment from {self.from_!r} to himself")
        return self


class Claimed(_Strict):
    """What the table wrote down as the result; each present part is checked."""

    winner: Name | None = None
    tricks: dict[Name, Annotated[int, Field(ge=0, le=16)]] | None = None
    payments: list[Payment] | None = None


class Game(_Strict):
    """One game record in format foreman/1 or foreman/1.1."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, defer_build=True,
        json_schema_extra={"$id": "https://foreman.invalid/schemas/foreman-1.schema.json",
                           "title": "Foreman game record (foreman/1, foreman/1.1)"},
    )

    format: Literal["foreman/1", "foreman/1.1"]
    id: Annotated[str, Field(pattern=ID_PATTERN)]
    players: Annotated[list[Name], Field(min_length=3, max_length=3)]
    deals: Annotated[list[Deal], Field(min_length=1)]
    played_at: Annotated[str, AfterValidator(_iso_datetime)] | None = None
    series: Series | None = None
    rules: Rules | None = None
    card_notation: Literal["en", "seed"] | None = None
    stake: Amount | None = None
    currency: Annotated[str, Field(min_length=1, max_length=32)] | None = None
    claimed: Claimed | None = None
    notes: str | None = None
    ext: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _distinct_players(self) -> "Game":
        if len(set(self.players)) != len(self.players):
            raise ValueError(f"players must be 3 distinct names, got {self.players}")
        return self


def json_schema() -> dict[str, Any]:
    """Return the JSON Schema of foreman/1 and foreman/1.1, generated from the models."""
    schema = Game.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


# --- the game the engine replays: the record's deals with canonical tokens, names resolved ---


@dataclass(slots=True)
class ClaimData:
    """The claimed result with names resolved; None where a part is not claimed."""

    winner_claimed: bool
    winner: str | None
    tricks: dict[str, int] | None
    payments: list[tuple[str, str, Decimal]] | None


@dataclass(slots=True)
class GameData:
    """A replayable game: the deals as read (canonical tokens, names that are players), the rules.

    `deals` holds the fast decoder's structs: `dealer`, `hands` (name -> tokens), `kitty`,
    `passes` (`from_`, `to`, `card`, `returned`), `discards`, `tricks` (`leader`, `cards`). The
    engine turns tokens into card ints as it goes, so a record is never copied into other objects.
    """

    id: str
    players: tuple[str, str, str]
    seat: dict[str, int]
    rules: HouseRules
    deals: list[Any]
    stake: Decimal | None
    currency: str | None
    claimed: ClaimData | None
    series: tuple[str, int] | None
    played_at: str | None


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One way a record fails the format: a JSON path and a message."""

    path: str
    message: str


def quote(value: Any, limit: int = 60) -> str:
    """repr() of a value from a record, cut short: a message must stay one readable line."""
    r = repr(value)
    return r if len(r) <= limit else r[: limit - 5] + "...'" + f" ({len(str(value))} characters)"


def _path(loc: tuple[Any, ...]) -> str:
    out = "$"
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}"
        else:
            out += f"[{part!r}]"
    return out


_BRANCH = re.compile(r"^(str|int|list\[.*\]|dict\[.*\]|function-after\[.*\]|literal\[.*\]|[A-Z]\w*)$")


def problems_from_validation(err: ValidationError, limit: int = 20) -> list[SchemaProblem]:
    """Turn a pydantic ValidationError into schema problems with JSON paths (the first `limit`)."""
    out: list[SchemaProblem] = []
    seen: set[tuple[str, str]] = set()
    for e in err.errors(include_url=False):
        # Drop union-branch labels such as 'function-after[...]' or 'Rules' from the location.
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and _BRANCH.match(p) and p not in _FIELD_NAMES))
        msg = e["msg"]
        if e["type"] == "missing":
            msg = "required field is missing"
        elif e["type"] == "extra_forbidden":
            msg = f"unknown field {loc[-1]!r}" if loc else "unknown field"
        elif e["type"] == "string_pattern_mismatch":
            msg = f"{quote(e['input'])} is not valid here ({_pattern_hint(e)})"
        elif e["type"] == "value_error":
            msg = msg.removeprefix("Value error, ")
        elif "input" in e and not isinstance(e["input"], (dict, list)):
            msg = f"{msg}, got {quote(e['input'])}"
        key = (_path(loc), msg)
        if key in seen:
            continue
        seen.add(key)
        out.append(SchemaProblem(*key))
        if len(out) >= limit:
            break
    return out


_FIELD_NAMES = {
    name for model in (Game, Deal, Pass, Trick, Series, Rules, Payment, Claimed, Claim)
    for name in (*model.model_fields, *(f.alias for f in model.model_fields.values() if f.alias))
}


def _pattern_hint(e: dict[str, Any]) -> str:
    pattern = (e.get("ctx") or {}).get("pattern", "")
    if pattern == CARD_PATTERN:
        return "a card is rank then suit, e.g. 10S, QH, AD, 2C"
    if pattern == ID_PATTERN:
        return "an id is 1-128 ASCII letters, digits and ._:-"
    if pattern == AMOUNT_PATTERN:
        return "an amount is digits with an optional decimal part, e.g. '1.00'"
    return f"must match {pattern}"


def to_game_data(g: Game, overrides: dict[str, Any] | None = None) -> GameData | list[SchemaProblem]:
    """Resolve a validated record: every token to its canonical form, every name checked."""
    players = tuple(g.players)
    seat = {n: i for i, n in enumerate(players)}
    notation = g.card_notation or "en"
    table = C.token_table(notation)
    problems: list[SchemaProblem] = []

    def who(name: str, path: str) -> str:
        if name not in seat:
            problems.append(SchemaProblem(path, f"{name!r} is not one of the players {list(players)}"))
        return name

    def cards(tokens: list[str], path: str) -> list[str]:
        out = []
        for j, t in enumerate(tokens):
            c = C.parse_token(t, table)
            if c is None:
                problems.append(SchemaProblem(f"{path}[{j}]", C.explain_bad_token(t, notation)))
                c = 0
            out.append(C.CANONICAL[c])
        return out

    deals = []
    for i, d in enumerate(g.deals):
        p = f"$.deals[{i}]"
        hands = {}
        for name, toks in d.hands.items():
            who(name, f"{p}.hands[{name!r}]")
            hands[name] = cards(toks, f"{p}.hands[{name!r}]")
        for name in players:
            if name not in d.hands:
                problems.append(SchemaProblem(f"{p}.hands", f"no hand for player {name!r}"))
        passes = [_FPass(who(ps.from_, f"{p}.passes[{j}].from"), who(ps.to, f"{p}.passes[{j}].to"),
                         cards([ps.card], f"{p}.passes[{j}].card")[0],
                         cards([ps.returned], f"{p}.passes[{j}].returned")[0]) for j, ps in enumerate(d.passes)]
        tricks = [_FTrick(who(t.leader, f"{p}.tricks[{j}].leader"), cards(t.cards, f"{p}.tricks[{j}].cards"))
                  for j, t in enumerate(d.tricks)]
        claim = None
        if d.claim is not None:
            if g.format == FORMAT:
                problems.append(SchemaProblem(f"{p}.claim", "a deal's claim is foreman/1.1: write "
                                              "\"format\": \"foreman/1.1\""))
            claim = _FClaim(who(d.claim.by, f"{p}.claim.by"), d.claim.accepted, d.claim.statement)
        deals.append(_FDeal(who(d.dealer, f"{p}.dealer"), hands, cards(d.kitty, f"{p}.kitty"), passes,
                            cards(d.discards, f"{p}.discards"), tricks, claim))
    claimed = _claim(g, seat, problems)
    if problems:
        return problems
    return _finish(g, deals, claimed, overrides)


def _claim(g: Game, seat: dict[str, int], problems: list[SchemaProblem]) -> ClaimData | None:
    """The claimed result, with a problem for each name that is not a player."""
    def who(name: str, path: str) -> None:
        if name not in seat:
            problems.append(SchemaProblem(path, f"{name!r} is not one of the players {list(g.players)}"))

    claim = None
    if g.claimed is not None:
        cl = g.claimed
        if isinstance(cl.winner, str):
            who(cl.winner, "$.claimed.winner")
        for name in cl.tricks or {}:
            who(name, f"$.claimed.tricks[{name!r}]")
        pays = None
        if cl.payments is not None:
            pays = []
            for j, pm in enumerate(cl.payments):
                who(pm.from_, f"$.claimed.payments[{j}].from")
                who(pm.to, f"$.claimed.payments[{j}].to")
                if pm.from_ == pm.to:
                    problems.append(SchemaProblem(f"$.claimed.payments[{j}]", f"a payment from {pm.from_!r} to himself"))
                pays.append((pm.from_, pm.to, money.amount(pm.amount)))
        claimed_winner = _winner_claimed(cl)
        claim = ClaimData(claimed_winner, cl.winner if claimed_winner else None, cl.tricks, pays)
    return claim


def _winner_claimed(cl: Any) -> bool:
    if isinstance(cl, msgspec.Struct):
        return cl.winner is not msgspec.UNSET
    return "winner" in cl.model_fields_set


_ISO_4217 = re.compile(r"[A-Za-z]{3}")


def currency_code(c: str | None) -> str | None:
    """An ISO 4217 code in upper case ('gbp' is GBP); any other label as written."""
    return c.upper() if c is not None and _ISO_4217.fullmatch(c) else c


def _finish(g: Any, deals: list[Any], claim: ClaimData | None, overrides: dict[str, Any] | None) -> GameData:
    if g.rules is None:
        rules = HouseRules()
    elif isinstance(g.rules, msgspec.Struct):
        rules = HouseRules(**msgspec.structs.asdict(g.rules))
    else:
        rules = HouseRules(**g.rules.model_dump())
    if overrides:
        rules = rules.with_overrides(overrides)
    players = tuple(g.players)
    return GameData(
        id=g.id, players=players, seat={n: i for i, n in enumerate(players)}, rules=rules, deals=deals,
        stake=money.amount(g.stake) if g.stake is not None else None,
        currency=currency_code(g.currency), claimed=claim,
        series=(g.series.id, g.series.seq) if g.series is not None else None,
        played_at=g.played_at,
    )


EXT_MAX_DEPTH = 64  # levels of nesting inside `ext`; both decoders refuse more (FORMAT is silent)


def ext_problem(value: Any, depth: int = 1) -> tuple[str, str] | None:
    """Why an `ext` value is refused: ('RECORD_SYNTAX', msg) for NaN or Infinity (not JSON), or
    ('RECORD_SCHEMA', msg) for nesting deeper than EXT_MAX_DEPTH; None when it is fine."""
    stack = [(value, depth)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            token = "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
            return "RECORD_SYNTAX", f"not JSON: {token} is not a JSON number"
        if isinstance(v, (dict, list)):
            if d > EXT_MAX_DEPTH:
                return "RECORD_SCHEMA", f"nested deeper than {EXT_MAX_DEPTH} levels"
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return None


# --- decoding one record's text ---


@dataclass(slots=True)
class Invalid:
    """Why a record's text is not a replayable game: RECORD_SYNTAX or RECORD_SCHEMA problems."""

    code: str
    problems: list[SchemaProblem]
    id: str | None = None
    line: int | None = None  # 1-based line inside the text, for syntax errors
    column: int | None = None


_JSON_POS = re.compile(r"\s*at line (\d+) column (\d+)$")


def decode(text: bytes | str, overrides: dict[str, Any] | None = None) -> GameData | Invalid:
    """Validate a record's JSON text and resolve it for replay, or say why it cannot be.

    The fast decoder (msgspec, canonical tokens only) is stricter than the pydantic models: what
    it accepts, they accept with the same result (tests/test_decoders.py). Anything it refuses,
    from lower-case cards to a real error, goes to the models, which decide and explain.
    """
    try:
        g = _FAST.decode(text)
    except msgspec.DecodeError:
        return decode_careful(text, overrides)
    seat = {n: i for i, n in enumerate(g.players)}
    if len(seat) != 3 or (g.played_at is not None and not _is_iso(g.played_at)):
        return decode_careful(text, overrides)
    if not (_names_ok or names_ok)(g.deals, seat) or (g.format == FORMAT and any(d.claim for d in g.deals)):
        return decode_careful(text, overrides)
    problems: list[SchemaProblem] = []
    claim = _claim(g, seat, problems)
    if problems or (g.ext is not None and ext_problem(g.ext)):
        return decode_careful(text, overrides)
    return _finish(g, g.deals, claim, overrides)


def names_ok(deals: list[Any], seat: dict[str, int]) -> bool:
    """Every deal's hands, dealer, leaders, passes and claim name only the three players.

    The compiled core has the same check (`_core.names_ok`), used when it is built.
    """
    names = seat.keys()
    for d in deals:
        h = d.hands
        if (len(h) != 3 or d.dealer not in seat or h.keys() != names
                or not {t.leader for t in d.tricks} <= names
                or not {p.from_ for p in d.passes} | {p.to for p in d.passes} <= names
                or (d.claim is not None and d.claim.by not in seat)):
            return False
    return True


def _compiled_names_ok():
    import os
    if os.environ.get("FOREMAN_PURE") == "1":
        return None
    try:
        from ._core import names_ok as c_names_ok
    except ImportError:
        return None
    return c_names_ok


_names_ok = _compiled_names_ok()


def decode_careful(text: bytes | str, overrides: dict[str, Any] | None = None) -> GameData | Invalid:
    """Decode through the pydantic models: the contract, with a message for every problem."""
    try:
        g = Game.model_validate_json(text)
    except ValidationError as e:
        errs = e.errors(include_url=False)
        if errs and errs[0]["type"] == "json_invalid":
            msg = errs[0]["msg"].removeprefix("Invalid JSON: ")
            if "hex escape" in msg:
                # What the JSON parser says of "\ud800" too: a lone surrogate is no character.
                msg = msg.replace("unexpected end of hex escape", "a \\u escape that is not a whole character "
                                  "(a lone surrogate such as \\ud800, or bad hex digits)")
            m = _JSON_POS.search(msg)
            line = col = None
            if m:
                line, col = int(m.group(1)), int(m.group(2))
                msg = msg[: m.start()]
            return Invalid("RECORD_SYNTAX", [SchemaProblem("$", f"not JSON: {msg}")], None, line, col)
        return Invalid("RECORD_SCHEMA", problems_from_validation(e), _id_of(text))
    bad = ext_problem(g.ext) if g.ext is not None else None
    if bad is not None:
        code, msg = bad
        return Invalid(code, [SchemaProblem("$.ext", msg)], g.id)
    data = to_game_data(g, overrides)
    if isinstance(data, list):
        return Invalid("RECORD_SCHEMA", data, g.id)
    return data


def _is_iso(v: str) -> bool:
    try:
        _iso_datetime(v)
    except ValueError:
        return False
    return True


# --- the fast decoder: the same format, canonical card tokens only ---

_Card = Literal[C.CANONICAL]  # type: ignore[valid-type]
_MName = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
_MAmount = Annotated[str, msgspec.Meta(pattern=r"\A[0-9]+(?:\.[0-9]+)?\Z", max_length=AMOUNT_MAX)]


class _FPass(msgspec.Struct, forbid_unknown_fields=True, rename={"from_": "from"}):
    from_: _MName
    to: _MName
    card: _Card
    returned: _Card


class _FTrick(msgspec.Struct, forbid_unknown_fields=True):
    leader: _MName
    cards: list[_Card]


class _FClaim(msgspec.Struct, forbid_unknown_fields=True):
    by: _MName
    accepted: bool
    statement: str | None = None


class _FDeal(msgspec.Struct, forbid_unknown_fields=True):
    dealer: _MName
    hands: dict[_MName, list[_Card]]
    kitty: list[_Card]
    passes: list[_FPass]
    discards: list[_Card]
    tricks: list[_FTrick]
    claim: _FClaim | None = None


class _FSeries(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    seq: Annotated[int, msgspec.Meta(ge=1, le=10**9)]


class _FRules(msgspec.Struct, forbid_unknown_fields=True):
    quota: Literal["8-5-3", "9-5-2"] = "8-5-3"
    target: Annotated[int, msgspec.Meta(ge=1, le=16)] = 12
    return_rule: Literal["highest", "higher"] = "highest"
    kitty: Literal["swap", "pickup"] = "swap"
    deal_rotation: Literal["left", "free"] = "left"
    next_dealer: Literal["winner-or-loser", "winner", "loser", "free"] = "winner-or-loser"
    claim_rule: Literal["any-order", "best-play"] = "any-order"


class _FPayment(msgspec.Struct, forbid_unknown_fields=True, rename={"from_": "from"}):
    from_: _MName
    to: _MName
    amount: _MAmount


class _FClaimed(msgspec.Struct, forbid_unknown_fields=True):
    winner: _MName | None | msgspec.UnsetType = msgspec.UNSET
    tricks: dict[_MName, Annotated[int, msgspec.Meta(ge=0, le=16)]] | None = None
    payments: list[_FPayment] | None = None


class _FGame(msgspec.Struct, forbid_unknown_fields=True):
    format: Literal["foreman/1", "foreman/1.1"]
    id: Annotated[str, msgspec.Meta(pattern=r"\A[A-Za-z0-9._:-]{1,128}\Z")]
    players: Annotated[list[_MName], msgspec.Meta(min_length=3, max_length=3)]
    deals: Annotated[list[_FDeal], msgspec.Meta(min_length=1)]
    played_at: str | None = None
    series: _FSeries | None = None
    rules: _FRules | None = None
    card_notation: Literal["en"] | None = None  # seed records take the careful path
    stake: _MAmount | None = None
    currency: Annotated[str, msgspec.Meta(min_length=1, max_length=32)] | None = None
    claimed: _FClaimed | None = None
    notes: str | None = None
    ext: dict[str, Any] | None = None


_FAST = msgspec.json.Decoder(_FGame)


def _id_of(text: bytes | str) -> str | None:
    """The record's id when it is a string, even in a record that fails the schema."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(obj, dict) and isinstance(obj.get("id"), str):
        return obj["id"]
    return None
