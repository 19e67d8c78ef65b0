"""The foreman/1, 1.1 and 1.2 record: the fast decoder, the checks its types cannot make, the parse for the replay."""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Iterable
from datetime import datetime, timezone
from decimal import Decimal
from typing import Annotated, Any, Literal

import msgspec

from . import cards as C
from . import money
from .findings import Finding, RecordSchema, RecordSyntax
from .rules import CHOICES, TARGET_RANGE, HouseRules

FORMAT = "foreman/1"
FORMAT_1_2 = "foreman/1.2"
FORMATS = (FORMAT, "foreman/1.1", FORMAT_1_2)  # every version a record may declare
SEEN_PARTS = ("hands", "kitty", "passes", "discards")  # what a record of the play (1.2) may leave out
AMOUNT_MAX = 40
# The shape of a card token in either notation; which ranks are allowed depends on
# `card_notation` and is checked when the record is turned into ints (with a clear message).
CARD_PATTERN = r"^(?:10|[2-9TJQKABDtjqkabd])[SHDCshdc♠♥♦♣]$"
ID_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"
AMOUNT_PATTERN = r"^[0-9]+(?:\.[0-9]+)?$"


def _iso_datetime(text: str) -> str:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 date and time, e.g. 2026-11-29T20:15:00+00:00") from None
    if "T" not in text and " " not in text:
        raise ValueError(f"{text!r} has no time of day; write e.g. {text}T20:15:00+00:00")
    return text


def utc_instant(text: str | None) -> str | None:
    """A `played_at` as an instant with its offset: one written without an offset is UTC, never
    the zone of the machine that reads it."""
    if text is None:
        return None
    when = datetime.fromisoformat(text)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.isoformat()


# --- the game the engine replays: the record's deals with canonical tokens, names resolved ---


class ClaimData(msgspec.Struct):
    """The claimed result with names resolved; None where a part is not claimed."""

    winner_claimed: bool
    winner: str | None
    tricks: dict[str, int] | None
    payments: list[tuple[str, str, Decimal]] | None


class GameData(msgspec.Struct):
    """A replayable game: the deals as read (canonical tokens, names that are players), the rules.

    `deals` holds the fast decoder's structs: `dealer`, `hands` (name -> tokens), `kitty`,
    `passes` (`from_`, `to`, `card`, `returned`), `discards`, `tricks` (`leader`, `cards`). The
    engine turns tokens into card ints as it goes, so a record is never copied into other objects.
    A game the compiled lane read (lane.py) has no `deals` but `blocks`, its deals as card codes.
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
    blocks: bytes | None = None


class SchemaProblem(msgspec.Struct, frozen=True):
    """One way a record fails the format: a JSON path and a message."""

    path: str
    message: str


def quote(value: Any, limit: int = 60) -> str:
    """repr() of a value from a record, cut short: a message must stay one readable line."""
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 5] + "...'" + f" ({len(str(value))} characters)"


def _claim(game: Any, seat: dict[str, int], problems: list[SchemaProblem]) -> ClaimData | None:
    """The claimed result, with a problem for each name that is not a player."""
    def who(name: str, path: str, *at: Any) -> None:
        if name not in seat:  # the path is made only for a problem: this runs for every game
            problems.append(SchemaProblem(path.format(*at), f"{name!r} is not one of the players {list(game.players)}"))

    if game.claimed is None:
        return None
    cl = game.claimed
    if isinstance(cl.winner, str):
        who(cl.winner, "$.claimed.winner")
    for name in cl.tricks or ():
        who(name, "$.claimed.tricks[{!r}]", name)
    pays = None
    if cl.payments is not None:
        pays = []
        for j, pm in enumerate(cl.payments):
            who(pm.from_, "$.claimed.payments[{}].from", j)
            who(pm.to, "$.claimed.payments[{}].to", j)
            if pm.from_ == pm.to:
                problems.append(SchemaProblem(f"$.claimed.payments[{j}]", f"a payment from {pm.from_!r} to himself"))
            pays.append((pm.from_, pm.to, money.amount(pm.amount)))
    claimed_winner = _winner_claimed(cl)
    return ClaimData(claimed_winner, cl.winner if claimed_winner else None, cl.tricks, pays)


def _winner_claimed(cl: Any) -> bool:
    if isinstance(cl, msgspec.Struct):
        return cl.winner is not msgspec.UNSET
    return "winner" in cl.model_fields_set


_ISO_4217 = re.compile(r"[A-Za-z]{3}")


@functools.lru_cache(maxsize=1024)  # asked for every game; an archive has a few currencies
def currency_code(code: str | None) -> str | None:
    """An ISO 4217 code in upper case ('gbp' is GBP); any other label as written."""
    return code.upper() if code is not None and _ISO_4217.fullmatch(code) else code


_DEFAULT_RULES = HouseRules()


def _finish(game: Any, deals: list[Any], claim: ClaimData | None, overrides: dict[str, Any] | None,
            seat: dict[str, int] | None = None) -> GameData:
    if game.rules is None:
        rules = _DEFAULT_RULES
    elif isinstance(game.rules, msgspec.Struct):
        rules = HouseRules(**msgspec.structs.asdict(game.rules))
    else:
        rules = HouseRules(**game.rules.model_dump())
    if overrides:
        rules = rules.with_overrides(overrides)
    players = tuple(game.players)
    return GameData(
        id=game.id, players=players, seat=seat or {n: i for i, n in enumerate(players)}, rules=rules, deals=deals,
        stake=money.amount(game.stake) if game.stake is not None else None,
        currency=currency_code(game.currency), claimed=claim,
        series=(game.series.id, game.series.seq) if game.series is not None else None,
        played_at=game.played_at,
    )


EXT_MAX_DEPTH = 64  # levels of nesting inside `ext`; both decoders refuse more (FORMAT is silent)


def ext_problem(value: Any, depth: int = 1) -> tuple[type[Finding], str] | None:
    """Why an `ext` value is refused: (RecordSyntax, msg) for NaN or Infinity (not JSON), or
    (RecordSchema, msg) for nesting deeper than EXT_MAX_DEPTH; None when it is fine."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, float) and (item != item or item in (float("inf"), float("-inf"))):
            token = "NaN" if item != item else ("Infinity" if item > 0 else "-Infinity")
            return RecordSyntax, f"not JSON: {token} is not a JSON number"
        if isinstance(item, (dict, list)):
            if level > EXT_MAX_DEPTH:
                return RecordSchema, f"nested deeper than {EXT_MAX_DEPTH} levels"
            stack.extend((x, level + 1) for x in (item.values() if isinstance(item, dict) else item))
    return None


# --- decoding one record's text ---


class Invalid(msgspec.Struct):
    """Why a record's text is not a replayable game: its problems, of syntax or of the schema."""

    code: type[Finding]  # RecordSyntax or RecordSchema
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
        game = _whole_decoder().decode(text)
    except (msgspec.DecodeError, RecursionError):  # the careful path says what is wrong, depth included
        return decode_careful(text, overrides)
    seat = {n: i for i, n in enumerate(game.players)}
    if not names_ok(game.deals, seat) or (game.format == FORMAT and any(d.claim for d in game.deals)):
        return decode_careful(text, overrides)
    if game.format != FORMAT_1_2 and any(not is_full(d) or d.left is not None for d in game.deals):
        return decode_careful(text, overrides)
    claim = _head_checked(game, seat)
    if claim is False:
        return decode_careful(text, overrides)
    return _finish(game, game.deals, claim, overrides, seat)


def decode_head(head: bytes, overrides: dict[str, Any] | None = None, alone: bool = False) -> GameData | None:
    """A plain record's head (every member but its deals, which the compiled scan has read) as a
    GameData without deals, checked as `decode` checks a whole record; None: take the full path.
    With `alone` a deal records its play alone, which only foreman/1.2 may."""
    try:
        game = _HEAD.decode(head)
    except msgspec.DecodeError:
        return None
    if alone and game.format != FORMAT_1_2:
        return None
    seat = {n: i for i, n in enumerate(game.players)}
    claim = _head_checked(game, seat)
    return None if claim is False else _finish(game, [], claim, overrides, seat)


def _plain_names(players: list[str]) -> bool:
    """Names no one can mistake for one another: printable, no space at either end, distinct once
    Unicode forms and case are set aside. Anything else goes to the careful path, which says why
    (player_names_problem)."""
    if not all(n.isprintable() and n == n.strip() for n in players):
        return False
    if all(n.isascii() for n in players):  # NFKC leaves ASCII as it is
        return len({n.casefold() for n in players}) == len(players)
    return len({unicodedata.normalize("NFKC", n).casefold() for n in players}) == len(players)


def player_names_problem(players: list[str]) -> str | None:
    """Why three names cannot stand as the players, or None: a control or invisible character in a
    name, a space at either end, or two names that are one after Unicode normalisation (NFKC) and
    case folding (they print alike, so a reader could not tell who did what)."""
    for n in players:
        hidden = [c for c in n if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
        if hidden:
            return f"player name {ascii(n)} holds the invisible or control character {ascii(hidden[0])}"
        if n != n.strip():
            return f"player name {ascii(n)} begins or ends with a space"
    seen: dict[str, str] = {}
    for n in players:
        key = name_key(n)
        if key in seen:
            return (f"players {ascii(seen[key])} and {ascii(n)} are one name once Unicode forms and case are set "
                    f"aside: write each player the same way every time")
        seen[key] = n
    return None


def name_key(name: str) -> str:
    """A player's name with Unicode forms (NFKC) and case set aside: two names with one key print
    alike, so no reader can tell them apart."""
    return unicodedata.normalize("NFKC", name).casefold()


def name_clashes(names: Iterable[str]) -> list[list[str]]:
    """The groups of names that are one once Unicode forms and case are set aside ('Alice' and
    'alice'): a record refuses such names side by side; across games the ledger and the ratings
    keep them apart (they may be two people) but say so, since a reader cannot tell them apart."""
    groups: dict[str, set[str]] = {}
    for name in names:
        groups.setdefault(name_key(name), set()).add(name)
    return sorted(sorted(group) for group in groups.values() if len(group) > 1)


def label_problem(currency: str | None, series_id: str | None) -> tuple[str, str] | None:
    """(path, why) when a currency label or a series id, which views print inline, holds a character
    a terminal would obey (a line break, a tab, a control or invisible one), or a space at either end
    (' GBP' would be a balance of its own that prints as GBP); None when they are fine."""
    for path, text in (("$.currency", currency), ("$.series.id", series_id)):
        if text is not None and not text.isprintable():
            bad = next(c for c in text if not c.isprintable())
            return path, f"{ascii(text)} holds the character {ascii(bad)}, which a view would not print as itself"
        if text is not None and text != text.strip():
            return path, f"{ascii(text)} begins or ends with a space, so it would print as another label does"
    return None


def _head_checked(game: Any, seat: dict[str, int]) -> ClaimData | None | bool:
    """The checks of a decoded record that its types cannot make, but for the deals' names: the
    claimed result (None when there is none), or False when the careful path must decide."""
    if len(seat) != 3 or (game.played_at is not None and not _is_iso(game.played_at)) or not _plain_names(game.players):
        return False
    if label_problem(game.currency, game.series.id if game.series is not None else None) is not None:
        return False
    problems: list[SchemaProblem] = []
    claim = _claim(game, seat, problems)
    if problems or (game.ext is not None and ext_problem(game.ext)):
        return False
    return claim


def is_full(deal: Any) -> bool:
    """Whether a deal records its hands, kitty, passes and discards (a record of the play may not)."""
    return deal.hands is not None and deal.kitty is not None and deal.passes is not None and deal.discards is not None


def is_play_alone(deal: Any) -> bool:
    """Whether a deal records none of its hands, kitty, passes and discards: the tricks alone."""
    return deal.hands is None and deal.kitty is None and deal.passes is None and deal.discards is None


def names_ok(deals: list[Any], seat: dict[str, int]) -> bool:
    """Every deal's hands, dealer, leaders, passes, claim and `left` name only the three players,
    the hands and `left`, when recorded, each of the three."""
    names = seat.keys()
    for d in deals:
        hands, left, passes = d.hands, d.left, d.passes or ()
        if ((hands is not None and (len(hands) != 3 or hands.keys() != names)) or d.dealer not in seat
                or (left is not None and (len(left) != 3 or left.keys() != names))
                or not {t.leader for t in d.tricks} <= names
                or not {p.from_ for p in passes} | {p.to for p in passes} <= names
                or (d.claim is not None and d.claim.by not in seat)):
            return False
    return True


def decode_careful(text: bytes | str, overrides: dict[str, Any] | None = None) -> GameData | Invalid:
    """Decode through the pydantic models: the contract, with a message for every problem."""
    from .models import Game, ValidationError, problems_from_validation, to_game_data  # the careful path only
    try:
        game = Game.model_validate_json(text)
    except ValidationError as e:
        errs = e.errors(include_url=False)
        if errs and errs[0]["type"] == "json_invalid":
            msg = errs[0]["msg"].removeprefix("Invalid JSON: ")
            if "hex escape" in msg:
                # What the JSON parser says of "\ud800" too: a lone surrogate is no character.
                msg = msg.replace("unexpected end of hex escape", "a \\u escape that is not a whole character "
                                  "(a lone surrogate such as \\ud800, or bad hex digits)")
            where = _JSON_POS.search(msg)
            line = col = None
            if where:
                line, col = int(where.group(1)), int(where.group(2))
                msg = msg[: where.start()]
            return Invalid(RecordSyntax, [SchemaProblem("$", f"not JSON: {msg}")], None, line, col)
        top = _top_object(text)
        kind, game_id = top.get("certificate"), top.get("id")
        if isinstance(kind, str) and kind.startswith(CERTIFICATE_FAMILY):  # settle's own output among the records
            return Invalid(RecordSchema, [SchemaProblem("$", CERTIFICATE_NOT_A_RECORD)], None)
        return Invalid(RecordSchema, problems_from_validation(e), game_id if isinstance(game_id, str) else None)
    bad = ext_problem(game.ext) if game.ext is not None else None
    if bad is not None:
        code, msg = bad
        return Invalid(code, [SchemaProblem("$.ext", msg)], game.id)
    names = player_names_problem(list(game.players))
    if names is not None:
        return Invalid(RecordSchema, [SchemaProblem("$.players", names)], game.id)
    label = label_problem(game.currency, game.series.id if game.series is not None else None)
    if label is not None:
        return Invalid(RecordSchema, [SchemaProblem(*label)], game.id)
    data = to_game_data(game, overrides)
    if isinstance(data, list):
        return Invalid(RecordSchema, data, game.id)
    return data


CERTIFICATE_FAMILY = "foreman-settlement-certificate/"  # what a certificate's "certificate" begins with
CERTIFICATE_NOT_A_RECORD = ("a settlement certificate that foreman settle wrote, not a game record: check it with "
                            "'foreman verify CERTIFICATE RECORDS', and keep it out of the records' folder")


def _is_iso(text: str) -> bool:
    try:
        _iso_datetime(text)
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


FAR = 52  # the longest list of cards, tricks or passes a record may hold (models.FAR)
_MCards = Annotated[list[_Card], msgspec.Meta(max_length=FAR)]


class _FTrick(msgspec.Struct, forbid_unknown_fields=True):
    leader: _MName
    cards: _MCards


class _FClaim(msgspec.Struct, forbid_unknown_fields=True):
    by: _MName
    accepted: bool
    statement: str | None = None


class _FDeal(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    # In the order records write them: msgspec decodes fields met in declaration order fastest.
    dealer: _MName
    hands: Annotated[dict[_MName, _MCards], msgspec.Meta(max_length=FAR)] | None = None  # None: not recorded
    kitty: _MCards | None = None
    passes: Annotated[list[_FPass], msgspec.Meta(max_length=FAR)] | None = None
    discards: _MCards | None = None
    tricks: Annotated[list[_FTrick], msgspec.Meta(max_length=FAR)]
    claim: _FClaim | None = None
    left: Annotated[dict[_MName, _MCards], msgspec.Meta(max_length=FAR)] | None = None


class _FSeries(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    seq: Annotated[int, msgspec.Meta(ge=1, le=10**9)]


class _FRules(msgspec.Struct, forbid_unknown_fields=True):
    quota: Literal[CHOICES["quota"]] = CHOICES["quota"][0]  # type: ignore[valid-type]
    target: Annotated[int, msgspec.Meta(ge=TARGET_RANGE[0], le=TARGET_RANGE[1])] = HouseRules().target
    return_rule: Literal[CHOICES["return_rule"]] = CHOICES["return_rule"][0]  # type: ignore[valid-type]
    kitty: Literal[CHOICES["kitty"]] = CHOICES["kitty"][0]  # type: ignore[valid-type]
    deal_rotation: Literal[CHOICES["deal_rotation"]] = CHOICES["deal_rotation"][0]  # type: ignore[valid-type]
    next_dealer: Literal[CHOICES["next_dealer"]] = CHOICES["next_dealer"][0]  # type: ignore[valid-type]
    claim_rule: Literal[CHOICES["claim_rule"]] = CHOICES["claim_rule"][0]  # type: ignore[valid-type]


class _FPayment(msgspec.Struct, forbid_unknown_fields=True, rename={"from_": "from"}):
    from_: _MName
    to: _MName
    amount: _MAmount


class _FClaimed(msgspec.Struct, forbid_unknown_fields=True):
    winner: _MName | None | msgspec.UnsetType = msgspec.UNSET
    tricks: dict[_MName, Annotated[int, msgspec.Meta(ge=0, le=16)]] | None = None
    payments: list[_FPayment] | None = None


class _FHead(msgspec.Struct, forbid_unknown_fields=True):
    """A record but for its deals: what the compiled scan leaves to this decoder (lane.py)."""

    format: Literal["foreman/1", "foreman/1.1", "foreman/1.2"]
    id: Annotated[str, msgspec.Meta(pattern=r"\A[A-Za-z0-9._:-]{1,128}\Z")]
    players: Annotated[list[_MName], msgspec.Meta(min_length=3, max_length=3)]
    played_at: str | None = None
    series: _FSeries | None = None
    rules: _FRules | None = None
    card_notation: Literal["en"] | None = None  # seed records take the careful path
    stake: _MAmount | None = None
    currency: Annotated[str, msgspec.Meta(min_length=1, max_length=32)] | None = None
    claimed: _FClaimed | None = None
    notes: str | None = None
    ext: dict[str, Any] | None = None


class _FGame(_FHead, forbid_unknown_fields=True, kw_only=True):
    deals: Annotated[list[_FDeal], msgspec.Meta(min_length=1)]


_HEAD = msgspec.json.Decoder(_FHead)


@functools.cache
def _whole_decoder() -> msgspec.json.Decoder:
    # Made on first use: a run whose records the compiled lane reads needs only _HEAD, and starts sooner.
    return msgspec.json.Decoder(_FGame)


def __getattr__(name: str) -> Any:
    """The pydantic models (`Game`, ..., `json_schema`) load on first use: start-up stays light."""
    if name.startswith("__"):  # the import system asks for __path__ and such: not a model
        raise AttributeError(name)
    from . import models
    try:
        return getattr(models, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def _top_object(text: bytes | str) -> dict[str, Any]:
    """The record's top-level object, read again for its id and kind once it fails the schema; {} when it is none."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) else {}
