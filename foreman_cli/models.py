"""The pydantic models of foreman/1, 1.1 and 1.2: the contract, the JSON Schema and the careful decoder's messages.

Only the careful path (a record the fast decoder refuses) and `foreman schema` load this module,
and with it pydantic; `records.decode` reads good records without them.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import cards as C
from .rules import CHOICES, TARGET_RANGE, HouseRules
from .records import (AMOUNT_MAX, AMOUNT_PATTERN, CARD_PATTERN, FORMAT, FORMAT_1_2, ID_PATTERN, SEEN_PARTS, GameData,
                      SchemaProblem, _claim, _FClaim, _FDeal, _finish, _FPass, _FTrick, _iso_datetime, quote)
from .words import must, plural

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


# A list far beyond any the rules allow (more cards than the deck, more tricks or passes than it
# could make) is refused, so one wild record costs itself, not memory or a flood of findings.
FAR = 52
Cards = Annotated[list[CardToken], Field(max_length=FAR)]


class Trick(_Strict):
    """One trick: its leader and the cards in clockwise play order starting with him."""

    leader: Name
    cards: Cards


class Claim(_Strict):
    """(foreman/1.1) After the recorded tricks, `by` claimed every remaining trick of the deal."""

    by: Name
    accepted: bool
    statement: str | None = None


Hand = Annotated[dict[Name, Cards], Field(max_length=FAR)]


class Deal(_Strict):
    """One deal, as dealt and as played. A record of the play (foreman/1.2) may leave out (or write
    null for) the hands, the kitty, the passes and the discards, and give `left`."""

    dealer: Name
    hands: Hand | None = None
    kitty: Cards | None = None
    passes: Annotated[list[Pass], Field(max_length=FAR)] | None = None
    discards: Cards | None = None
    tricks: Annotated[list[Trick], Field(max_length=FAR)]
    claim: Claim | None = None
    left: Annotated[Hand | None, Field(description="(foreman/1.2) the cards each player still held when play "
                                                   "stopped: all three players")] = None


class Series(_Strict):
    """The games of one evening or club series, in order."""

    id: Annotated[str, Field(min_length=1, max_length=200)]
    seq: Annotated[int, Field(ge=1, le=10**9)]


class Rules(_Strict):
    """House options; absent keys take the defaults, a value may not be null."""

    quota: Literal[CHOICES["quota"]] = CHOICES["quota"][0]  # type: ignore[valid-type]
    target: Annotated[int, Field(ge=TARGET_RANGE[0], le=TARGET_RANGE[1])] = HouseRules().target
    return_rule: Literal[CHOICES["return_rule"]] = CHOICES["return_rule"][0]  # type: ignore[valid-type]
    kitty: Literal[CHOICES["kitty"]] = CHOICES["kitty"][0]  # type: ignore[valid-type]
    deal_rotation: Literal[CHOICES["deal_rotation"]] = CHOICES["deal_rotation"][0]  # type: ignore[valid-type]
    next_dealer: Literal[CHOICES["next_dealer"]] = CHOICES["next_dealer"][0]  # type: ignore[valid-type]
    claim_rule: Literal[CHOICES["claim_rule"]] = CHOICES["claim_rule"][0]  # type: ignore[valid-type]


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


def _distinct(players: list[str]) -> list[str]:
    if len(set(players)) != len(players):
        twice = next(name for name in players if players.count(name) > 1)
        raise ValueError(f"players must be 3 distinct names: {quote(twice)} is written twice")
    return players


class Game(_Strict):
    """One game record in format foreman/1, foreman/1.1 or foreman/1.2."""

    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, defer_build=True,
        json_schema_extra={"$id": "https://foreman.invalid/schemas/foreman-1.schema.json",
                           "title": "Foreman game record (foreman/1, foreman/1.1, foreman/1.2)"},
    )

    format: Literal["foreman/1", "foreman/1.1", "foreman/1.2"]
    id: Annotated[str, Field(pattern=ID_PATTERN)]
    players: Annotated[list[Name], Field(min_length=3, max_length=3, json_schema_extra={"uniqueItems": True}),
                       AfterValidator(_distinct)]
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


def json_schema() -> dict[str, Any]:
    """Return the JSON Schema of foreman/1, 1.1 and 1.2, generated from the models."""
    schema = Game.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    # What the models check in code and JSON Schema can say too: a deal's claim is 1.1 or later,
    # and only 1.2 may leave out what the table did not see or give `left`.
    full = {"required": list(SEEN_PARTS), "not": {"required": ["left"]},
            "properties": {"hands": {"type": "object"}, "kitty": {"type": "array"},
                           "passes": {"type": "array"}, "discards": {"type": "array"}}}
    schema["allOf"] = [
        {"if": {"properties": {"format": {"const": "foreman/1"}}},
         "then": {"properties": {"deals": {"items": {"not": {"required": ["claim"]}}}}}},
        {"if": {"properties": {"format": {"enum": ["foreman/1", "foreman/1.1"]}}},
         "then": {"properties": {"deals": {"items": full}}}},
    ]
    return schema


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
        elif e["type"] in ("too_short", "too_long"):
            msg = _length_message(e)
        elif e["type"] in ("string_too_short", "string_too_long"):
            bound = (e.get("ctx") or {}).get("min_length" if e["type"] == "string_too_short" else "max_length")
            side = "at least" if e["type"] == "string_too_short" else "at most"
            msg = f"must have {side} {plural(bound, 'character')}, got {quote(e['input'])}" if bound else e["msg"]
        elif e["type"] == "value_error":
            msg = msg.removeprefix("Value error, ")
        elif "input" in e:
            msg = _with_refused(msg, e["input"])
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


def _with_refused(msg: str, value: Any) -> str:
    """pydantic's message in the words of the others, with the value it refused when it is short."""
    msg = must(msg)
    if isinstance(value, str):
        return f"{msg}, got {quote(value)}"
    shown = json.dumps(value, separators=(", ", ": "), default=str)  # as the record wrote it: true, not True
    return msg if len(shown) > 40 else f"{msg}, got {shown}"


def _length_message(e: dict[str, Any]) -> str:
    """A list or object of the wrong length, in words: pydantic's own text speaks of its validation."""
    ctx = e.get("ctx") or {}
    short = e["type"] == "too_short"
    side, bound = ("at least", ctx.get("min_length")) if short else ("at most", ctx.get("max_length"))
    if not isinstance(bound, int):
        return e["msg"]  # pydantic always gives the bound; its own words if ever it does not
    dictionary = ctx.get("field_type") == "Dictionary"
    got = ctx.get("actual_length")
    return (f"needs {side} {plural(bound, 'entry', 'entries') if dictionary else plural(bound, 'item')}"
            + ("" if got is None else f", got {got}"))


def _pattern_hint(e: dict[str, Any]) -> str:
    pattern = (e.get("ctx") or {}).get("pattern", "")
    if pattern == CARD_PATTERN:
        return "a card is rank then suit, e.g. 10S, QH, AD, 2C"
    if pattern == ID_PATTERN:
        return "an id is 1-128 ASCII letters, digits and ._:-"
    if pattern == AMOUNT_PATTERN:
        return "an amount is digits with an optional decimal part, e.g. '1.00'"
    return f"must match {pattern}"


def to_game_data(game: Game, overrides: dict[str, Any] | None = None) -> GameData | list[SchemaProblem]:
    """Resolve a validated record: every token to its canonical form, every name checked."""
    players = tuple(game.players)
    seat = {n: i for i, n in enumerate(players)}
    notation = game.card_notation or "en"
    table = C.token_table(notation)
    problems: list[SchemaProblem] = []

    def who(name: str, path: str) -> str:
        if name not in seat:
            problems.append(SchemaProblem(path, f"{name!r} is not one of the players {list(players)}"))
        return name

    def cards(tokens: list[str], path: str) -> list[str]:
        out = []
        for j, t in enumerate(tokens):
            card = C.parse_token(t, table)
            if card is None:
                problems.append(SchemaProblem(f"{path}[{j}]", C.explain_bad_token(t, notation)))
                card = 0
            out.append(C.CANONICAL[card])
        return out

    def by_player(hands: dict[str, list[str]] | None, path: str, what: str) -> dict[str, list[str]] | None:
        if hands is None:
            return None
        out = {who(name, f"{path}[{name!r}]"): cards(toks, f"{path}[{name!r}]") for name, toks in hands.items()}
        problems.extend(SchemaProblem(path, f"no {what} for player {name!r}") for name in players if name not in hands)
        return out

    deals = []
    for i, d in enumerate(game.deals):
        at = f"$.deals[{i}]"
        if game.format != FORMAT_1_2:
            _play_only_problem(d, at, problems)
        hands = by_player(d.hands, f"{at}.hands", "hand")
        passes = None if d.passes is None else [
            _FPass(who(ps.from_, f"{at}.passes[{j}].from"), who(ps.to, f"{at}.passes[{j}].to"),
                   cards([ps.card], f"{at}.passes[{j}].card")[0], cards([ps.returned], f"{at}.passes[{j}].returned")[0])
            for j, ps in enumerate(d.passes)]
        tricks = [_FTrick(who(t.leader, f"{at}.tricks[{j}].leader"), cards(t.cards, f"{at}.tricks[{j}].cards"))
                  for j, t in enumerate(d.tricks)]
        claim = None
        if d.claim is not None:
            if game.format == FORMAT:
                problems.append(SchemaProblem(f"{at}.claim", "a deal's claim is foreman/1.1: write "
                                              "\"format\": \"foreman/1.1\""))
            claim = _FClaim(who(d.claim.by, f"{at}.claim.by"), d.claim.accepted, d.claim.statement)
        deals.append(_FDeal(dealer=who(d.dealer, f"{at}.dealer"), hands=hands,
                            kitty=None if d.kitty is None else cards(d.kitty, f"{at}.kitty"), passes=passes,
                            discards=None if d.discards is None else cards(d.discards, f"{at}.discards"),
                            tricks=tricks, claim=claim, left=by_player(d.left, f"{at}.left", "left")))
    claimed = _claim(game, seat, problems)
    if problems:
        return problems
    return _finish(game, deals, claimed, overrides)




def _play_only_problem(deal: Deal, path: str, problems: list[SchemaProblem]) -> None:
    """A foreman/1 or 1.1 deal that leaves out what only a record of the play may, or gives `left`."""
    missing = [part for part in SEEN_PARTS if getattr(deal, part) is None]
    if missing:
        problems.append(SchemaProblem(f"{path}.{missing[0]}", f"{_and(missing)} not recorded: a record of the play "
                                      f"is foreman/1.2: write \"format\": \"foreman/1.2\""))
    if deal.left is not None:
        problems.append(SchemaProblem(f"{path}.left", "the cards left in hand are foreman/1.2: write "
                                      "\"format\": \"foreman/1.2\""))


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
