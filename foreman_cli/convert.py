"""Records written as canonical `.fmn` notation, and `foreman convert` between JSON and notation, game by game."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import IO, Any
from dataclasses import dataclass

from .board import trick_winner
from .cards import RANKS, SEED_RANKS, parse_token, token_table
from .errors import UsageError
from .notation import card_token
from .reader import DEFAULT_MAX_RECORD_BYTES, read_records

FORMS = ("json", "fmn")
_NAMED = {".fmn": "fmn", ".json": "json", ".jsonl": "json"}  # what foreman reads a file so named as
_PLAIN_NAME = re.compile(r"[\w.'\-]+")  # letters of any script: "Björn" is typed bare
_KEYWORDS = {"none", "contested", "accepted", "-"}
_ESCAPED_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
_SPACED_BREAKS = str.maketrans({"\x85": " ", "\u2028": " ", "\u2029": " "})
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"?')


@dataclass(frozen=True, slots=True)
class Converted:
    """One game in the form asked for (`text`), or why it could not be (`problem`), and where it was read."""

    source: str
    text: str | None = None
    problem: str | None = None
    repeat: str | None = None  # a game of its id was read before: said, and written as given


def output_form(to: str | None, output: str | None) -> str:
    """The form to write: `to`, else the one the output's name calls for. They must agree, since
    foreman reads a file by its name and would read JSON named .fmn as broken notation."""
    if to is not None and to not in FORMS:
        raise UsageError(f"--to {to!r}: write json or fmn")
    if output == "":  # an empty shell variable, not standard output
        raise UsageError("-o '': an empty name names no file", "leave out -o to write to standard output")
    if output and output.endswith(".gz"):
        raise UsageError(f"-o {output!r}: convert writes plain text", "name the output .jsonl or .fmn")
    named = next((form for suffix, form in _NAMED.items() if output and output.endswith(suffix)), None)
    if to is None and named is None:
        raise UsageError("say which form to write: --to json or --to fmn", "or name the output file .jsonl or .fmn")
    if to is not None and named is not None and named != to:
        raise UsageError(f"--to {to} into {output!r}: foreman would read that file as {named}",
                         f"name it {'.fmn' if to == 'fmn' else '.jsonl'}, or leave out --to")
    return to or named


def convert(paths: list[str], to: str, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[Converted]:
    """Every game of the input (JSON or notation, mixed) as JSON Lines (`to='json'`) or notation."""
    first_read: dict[str, str] = {}  # where each id was read first
    for raw in read_records(paths, max_record_bytes):
        if raw.text is None:
            yield Converted(raw.where, problem=raw.error)
            continue
        try:
            rec = json.loads(raw.text)
        except json.JSONDecodeError as e:
            yield Converted(raw.where, problem=f"not JSON: {e.msg} (line {e.lineno} column {e.colno})")
            continue
        if not isinstance(rec, dict):
            yield Converted(raw.where, problem=f"not a game object but a JSON {type(rec).__name__}")
            continue
        repeat = _repeat(rec.get("id"), raw.where, first_read)
        if to == "json":
            yield Converted(raw.where, text=json.dumps(rec, ensure_ascii=False) + "\n", repeat=repeat)
        else:
            try:
                yield Converted(raw.where, text=write_game(rec), repeat=repeat)
            except (KeyError, TypeError, ValueError, AttributeError) as e:
                yield Converted(raw.where, problem=f"cannot be written as notation: missing or mistyped {e}")


def _repeat(game_id: Any, where: str, first_read: dict[str, str]) -> str | None:
    """What to say of a game whose id was read before (every command counts the first record of an
    id); None for the first."""
    if not isinstance(game_id, str):
        return None
    first = first_read.setdefault(game_id, where)
    return None if first == where else f"game {game_id} was read before, at {first}"


def write_converted(paths: list[str], to: str, out: IO[str]) -> tuple[list[Converted], list[Converted]]:
    """Write every game of the input to `out` in the form asked for, as it is read (notation's games
    a blank line apart); return the games that could not be converted, and the repeats written."""
    problems: list[Converted] = []
    repeats: list[Converted] = []
    first = True
    for c in convert(paths, to):
        if c.text is None:
            problems.append(c)
            continue
        if c.repeat is not None:
            repeats.append(c)
        out.write(c.text if first or to == "json" else "\n" + c.text)
        first = False
    return problems, repeats


def repeats_said(repeats: list[Converted], named: int = 3) -> str:
    """The repeats a conversion wrote, in one line: how many, and the first few where they were read."""
    said = "; ".join(f"{c.source}: {c.repeat}" for c in repeats[:named])
    more = f"; and {len(repeats) - named:,} more" if len(repeats) > named else ""
    return f"{len(repeats):,} games of the input were read before in it, and are written again: {said}{more}"


def write_game(rec: dict[str, Any]) -> str:
    """A record as canonical notation: every lead and every card off suit with its suit, following
    cards as bare ranks, a leader only where it is not the one due, trick numbers on every trick."""
    table, ranks = _cards_of(rec)
    out = header_lines(rec)
    for d in rec["deals"]:
        out += _deal_lines(d, rec["players"], table, ranks)
    return "\n".join(out) + "\n"


def header_lines(rec: dict[str, Any]) -> list[str]:
    """A record's game lines (id, players, stake, series, ...), canonical."""
    return [f"game {_value(rec['id'])}", "players " + " ".join(word(p) for p in rec["players"]), *_game_lines(rec)]


def trick_lines(rec: dict[str, Any], deal: int) -> list[str]:
    """The canonical lines of a deal's tricks (deal counted from 1), numbered, a leader written where not due."""
    return _tricks_written(rec["deals"][deal - 1], rec["players"], *_cards_of(rec))


def _cards_of(rec: dict[str, Any]) -> tuple[dict[str, int], tuple[str, ...]]:
    seed = rec.get("card_notation") == "seed"
    return token_table("seed" if seed else "en"), SEED_RANKS if seed else RANKS


def _game_lines(rec: dict[str, Any]) -> list[str]:
    out = []
    if rec.get("stake") is not None:
        out.append(f"stake {_value(rec['stake'])}" + (f" {_value(rec['currency'])}" if rec.get("currency") else ""))
    elif rec.get("currency") is not None:
        out.append(f"currency {_value(rec['currency'])}")
    if rec.get("series") is not None:
        out.append(f"series {_value(rec['series']['id'])} {rec['series']['seq']}")
    if rec.get("played_at") is not None:
        out.append(f"played {_value(rec['played_at'])}")
    if rec.get("rules"):
        out.append("rules " + " ".join(f"{k}={v}" for k, v in rec["rules"].items()))
    if rec.get("card_notation") is not None:
        out.append(f"cards {rec['card_notation']}")
    if rec.get("notes") is not None:
        out.append("note " + quoted(rec["notes"]))
    if rec.get("ext") is not None:
        out.append("ext " + quoted(rec["ext"]))
    claimed = rec.get("claimed")
    if claimed is not None:
        out += _claimed_lines(claimed)
    return out


def _claimed_lines(claimed: dict[str, Any]) -> list[str]:
    out = []
    if "winner" in claimed:
        out.append("claimed winner " + ("-" if claimed["winner"] is None else word(claimed["winner"])))
    if claimed.get("tricks") is not None:
        out.append(" ".join(["claimed tricks", *(f"{word(p)} {n}" for p, n in claimed["tricks"].items())]))
    if claimed.get("payments") is not None:
        pays = claimed["payments"]
        out += [f"claimed pay {word(x['from'])} {word(x['to'])} {x['amount']}" for x in pays] or ["claimed pay none"]
    return out or ["claimed"]


def _deal_lines(deal: dict[str, Any], players: list[str], table: dict[str, int], ranks: tuple[str, ...]) -> list[str]:
    out = [f"deal {word(deal['dealer'])}"]
    for name, cards in (deal.get("hands") or {}).items():
        out.append(" ".join(["hand", word(name), *cards]))
    if deal.get("passes") is not None:  # in the order of play: the passes, then the kitty and the discards
        out += [f"pass {word(p['from'])} {word(p['to'])} {p['card']} {p['returned']}" for p in deal["passes"]] \
            or ["pass none"]
    for key, keyword in (("kitty", "kitty"), ("discards", "discard")):
        if deal.get(key) is not None:
            out.append(" ".join([keyword, *deal[key]]) if deal[key] else f"{keyword} none")
    out += _tricks_written(deal, players, table, ranks)
    if deal.get("claim") is not None:
        claim = deal["claim"]
        statement = claim.get("statement")
        out.append(f"claim {word(claim['by'])} {'accepted' if claim['accepted'] else 'contested'}"
                   + ("" if statement is None else " " + quoted(statement)))
    if deal.get("left") is not None:
        out.append("left " + " / ".join(" ".join([word(p), *cards]) for p, cards in deal["left"].items()))
    return out


def _tricks_written(deal: dict[str, Any], players: list[str], table: dict[str, int],
                    ranks: tuple[str, ...]) -> list[str]:
    due = (players.index(deal["dealer"]) + 1) % 3 if deal["dealer"] in players else None
    out = []
    for n, t in enumerate(deal["tricks"], 1):
        line, due = _trick_line(n, t, due, players, table, ranks)
        out.append(line)
    return out


def _trick_line(trick_number: int, trick: dict[str, Any], due: int | None, players: list[str], table: dict[str, int],
                ranks: tuple[str, ...]) -> tuple[str, int | None]:
    """A trick's line, and the seat due to lead the next one."""
    leader = trick["leader"]
    written = "" if due is not None and players[due] == leader else f"{word(leader)}: "
    cards = [parse_token(c, table) for c in trick["cards"]]
    if None in cards:
        raise ValueError(f"card {trick['cards'][cards.index(None)]!r}")
    if not cards:
        return f"{trick_number}. {word(leader)}: -", due if leader in players else None
    words = [card_token(cards[0], ranks)]
    for c in cards[1:]:
        words.append(ranks[c % 13] if c // 13 == cards[0] // 13 else card_token(c, ranks))
    nxt = trick_winner(players.index(leader), cards) if leader in players else None
    return f"{trick_number}. {written}{' '.join(words)}", nxt


def _value(text: str) -> str:
    """A value (a date, an amount, an id) as one token: quoted only where a plain token would break."""
    return text if text and not re.search(r'[\s;/"#]', text) else quoted(text)


def word(text: str) -> str:
    """A name or label as one token: as it is when plain, else a quoted JSON string."""
    plain = _PLAIN_NAME.fullmatch(text) and text not in _KEYWORDS and not text.endswith((":", "."))
    return text if plain else quoted(text)


def quoted(value: Any) -> str:
    """A JSON value on one line of notation: readable characters as they are, and escaped the
    three (U+0085, U+2028, U+2029) that some editors and readers take for the end of a line."""
    return json.dumps(value, ensure_ascii=False).translate(_ESCAPED_BREAKS)


def one_line(line: str) -> str:
    """A typed line that any reader takes for one line: the three characters some take for a line
    end are escaped inside a quoted string, as `quoted` writes them, and are spaces outside one."""
    if line.isascii():
        return line
    line = _QUOTED.sub(lambda string: string.group().translate(_ESCAPED_BREAKS), line)
    return line.translate(_SPACED_BREAKS)
