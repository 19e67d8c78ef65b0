"""`foreman convert`: records between JSON and `.fmn` notation, game by game."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO
from dataclasses import dataclass

from .notation import write_game
from .reader import DEFAULT_MAX_RECORD_BYTES, read_records

FORMS = ("json", "fmn")


@dataclass(frozen=True, slots=True)
class Converted:
    """One game in the form asked for (`text`), or why it could not be (`problem`), and where it was read."""

    source: str
    text: str | None = None
    problem: str | None = None


def convert(paths: list[str], to: str, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[Converted]:
    """Every game of the input (JSON or notation, mixed) as JSON Lines (`to='json'`) or notation."""
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
        elif to == "json":
            yield Converted(raw.where, text=json.dumps(rec, ensure_ascii=False) + "\n")
        else:
            try:
                yield Converted(raw.where, text=write_game(rec))
            except (KeyError, TypeError, ValueError, AttributeError) as e:
                yield Converted(raw.where, problem=f"cannot be written as notation: missing or mistyped {e}")


def write_converted(paths: list[str], to: str, out: IO[str]) -> list[Converted]:
    """Write every game of the input to `out` in the form asked for, as it is read (notation's games
    a blank line apart); return the games that could not be converted."""
    problems: list[Converted] = []
    first = True
    for c in convert(paths, to):
        if c.text is None:
            problems.append(c)
            continue
        out.write(c.text if first or to == "json" else "\n" + c.text)
        first = False
    return problems
