"""Notation files read a game at a time: cut at their `game` lines, each game read by the compiled
reader where it can and by notation.py, the reference, where it cannot."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from . import core, notation

BLOCK = 1 << 20  # characters read at a time; a game longer than this is held whole until its end
# A line whose first word is `game` (notation.tokens' words end at white space, ; / " and #).
_GAME_LINE = re.compile(r'^[^\S\n]*game(?![^\s;/"#])', re.M)


class Read(NamedTuple):
    """A game as read: the line it starts at, its record's JSON text or its error, and its lines."""

    line: int
    text: str | None
    error: str | None = None
    column: int | None = None
    game: str | None = None
    id: str | None = None  # an error's game id, when its `game` line was read


def read_notation(stream: BinaryIO) -> Iterator[Read]:
    """The games of a `.fmn` stream: each its record's JSON text, or its error. A game holding
    bytes that are not UTF-8 is an error of its own; the games around it are read."""
    # Bytes that are not UTF-8 are kept as lone surrogates and found in their game; lines end at
    # \n, \r or \r\n, as the reference reads a file.
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="surrogateescape", newline=None)
    said = False  # what comes before the first game is an error once, however long
    try:
        for line, part, before_games in _games(text):
            if before_games and said:
                continue
            for rec in _read_game(part, line):
                said = said or before_games
                yield rec
    finally:
        text.detach()


def _games(text: io.TextIOBase) -> Iterator[tuple[int, str, bool]]:
    """Each game's lines as one text, from its `game` line to the next, with the number of its
    first line; and what comes before the first game, in parts, marked True."""
    carry, line, before_games = "", 1, True
    while True:
        block = text.read(BLOCK)
        buf = carry + block
        end = buf.rfind("\n") + 1 if block else len(buf)  # whole lines only, until the last block
        starts = [m.start() for m in _GAME_LINE.finditer(buf, 0, end) if _starts_game(buf, m.start())]
        if before_games:
            head = starts[0] if starts else end
            if head:
                yield line, buf[:head], True
                line += buf.count("\n", 0, head)
            buf, starts, before_games = buf[head:], [s - head for s in starts], not starts
        if starts:
            last = len(starts) - 1 if block else len(starts)  # the last game may go on in the next block
            bounds = [*starts, len(buf)]
            for i in range(last):
                yield line, buf[bounds[i]:bounds[i + 1]], False
                line += buf.count("\n", bounds[i], bounds[i + 1])
            carry = buf[bounds[last]:] if block else ""
        else:
            carry = buf
        if not block:
            return


def _starts_game(buf: str, at: int) -> bool:
    """Whether the line at `at`, whose first word is `game`, is read as a game line: one with a
    quoted string is only if its strings can be read."""
    eol = buf.find("\n", at)
    text = buf[at:eol if eol >= 0 else len(buf)]
    if '"' not in text:
        return True
    try:
        notation.tokens(text)
    except notation.NotationError:
        return False
    return True


def _read_game(game: str, line: int) -> Iterator[Read]:
    fast = core.fmn_game(game) if core.fmn_game is not None else None
    if fast is not None:
        yield Read(line, fast, game=game)
        return
    try:
        game.encode("utf-8")
    except UnicodeEncodeError as e:
        byte = ord(game[e.start]) - 0xDC00
        yield Read(line + game.count("\n", 0, e.start), None, f"not UTF-8 text: byte {byte:#04x}")
        return
    for g in notation.read_games(game.split("\n"), first=line):
        if g.record is not None:
            yield Read(g.line, json.dumps(g.record, ensure_ascii=False, separators=(",", ":")), game=game)
        else:
            yield Read(g.error_line, None, g.error, g.column, id=g.id)


def line_of(game: str, first: int, path: str) -> int | None:
    """The line of a notation game (its lines, the first numbered `first`) that wrote the field at
    `path`, or its nearest written parent: worked out again, only when a problem needs it."""
    games = list(notation.read_games(game.split("\n"), first=first))
    places = games[0].places if games else None
    return None if places is None else notation.line_of(places, path)
