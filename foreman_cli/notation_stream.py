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
# The word alone: a pattern that starts with `^` under re.M is tried at every character of the text.
_GAME_WORD = re.compile(r'game(?![^\s;/"#])')


class Read(NamedTuple):
    """A game as read: the line it starts at, its record's JSON text or its error, and its lines."""

    line: int
    text: str | None
    error: str | None = None
    column: int | None = None
    game: str | None = None
    id: str | None = None  # an error's game id, when its `game` line was read


def read_notation(stream: BinaryIO, limit: int, too_long: str) -> Iterator[Read]:
    """The games of a `.fmn` stream: each its record's JSON text, or its error. A game holding
    bytes that are not UTF-8 is an error of its own, and so is one longer than `limit` bytes (said
    in `too_long`), which is never held whole; the games around them are read."""
    # Bytes that are not UTF-8 are kept as lone surrogates and found in their game; lines end at
    # \n, \r or \r\n, as the reference reads a file.
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="surrogateescape", newline=None)
    said = False  # what comes before the first game is an error once, however long
    try:
        for line, part, kind in _games(text, limit):
            if kind == BEFORE and said:
                continue
            if kind == TOO_LONG or (kind == GAME and _longer(part, limit)):
                yield Read(line, None, too_long, id=_game_id(part))
                continue
            for rec in _read_game(part, line):
                said = said or kind == BEFORE
                yield rec
    finally:
        text.detach()


BEFORE, GAME, TOO_LONG = "before the first game", "a game", "a game too long to hold (its first line only)"


def _games(text: io.TextIOBase, limit: int) -> Iterator[tuple[int, str, str]]:
    """Each game's lines as one text, from its `game` line to the next, with the number of its
    first line; what comes before the first game, in parts; and, in place of a game that grows
    beyond `limit` characters, its first line, its other lines dropped as they are read (a line
    longer than `limit` is dropped as it is read, wherever it is)."""
    carry, line, before_games, dropping, in_long_line = "", 1, True, False, False
    while True:
        block = text.read(BLOCK)
        more = bool(block)
        if in_long_line:  # the rest of a line too long to hold
            cut = block.find("\n")
            if cut < 0 and more:
                continue
            block, line, in_long_line = block[cut + 1:], line + 1, False
        buf = carry + block
        end = buf.rfind("\n") + 1 if more else len(buf)  # whole lines only, until the last block
        starts = [at for at in _game_lines(buf, end) if _starts_game(buf, at)]
        if before_games:
            head = starts[0] if starts else end
            if head:
                if not dropping:
                    yield line, buf[:head], BEFORE
                line += buf.count("\n", 0, head)
            buf, starts, before_games = buf[head:], [s - head for s in starts], not starts
            end -= head
            dropping = dropping and before_games
        if starts:
            last = len(starts) - 1 if more else len(starts)  # the last game may go on in the next block
            bounds = [*starts, len(buf)]
            for i in range(last):
                yield line, buf[bounds[i]:bounds[i + 1]], GAME
                line += buf.count("\n", bounds[i], bounds[i + 1])
            carry = buf[bounds[last]:] if more else ""
        else:
            carry = buf
        whole = end - (len(buf) - len(carry))  # its whole lines: a line the block cut may be the next game's
        if (whole > limit or len(carry) - whole > limit) and not (before_games and dropping):
            # said once, as the game it is in (or the text before the games); dropped up to the next game
            first = carry[:carry.find("\n", 0, whole)] if whole else carry[:80]  # its first line, or that line's start
            yield line, first, BEFORE if before_games else TOO_LONG
            in_long_line = whole <= limit
            line += carry.count("\n", 0, whole)
            carry, before_games, dropping = "" if in_long_line else carry[whole:], True, True
        elif before_games and len(carry) > limit:
            carry, in_long_line = "", True
        if not more:
            return


def _game_lines(buf: str, end: int) -> Iterator[int]:
    """Where each line before `end` whose first word is `game` starts (blanks before it allowed)."""
    for m in _GAME_WORD.finditer(buf, 0, end):
        line = buf.rfind("\n", 0, m.start()) + 1
        if line == m.start() or buf[line:m.start()].isspace():
            yield line


def _longer(game: str, limit: int) -> bool:
    """Whether a game's text is longer than `limit` bytes as UTF-8."""
    return len(game) > limit or (len(game) * 4 > limit and len(game.encode("utf-8", "surrogateescape")) > limit)


def _game_id(game: str) -> str | None:
    """The id its `game` line gives a game, when that line can be read."""
    try:
        words = notation.tokens(game[:game.find("\n") if "\n" in game else len(game)])
    except notation.NotationError:
        return None
    return words[1].text if len(words) > 1 else None


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
            yield Read(g.error_line, None, g.error, g.column, game=game, id=g.id)


# Lines whose error would echo in every line after them: nothing can be read past them.
_DEPENDED_ON = frozenset({"game", "players", "cards", "rules"})


def syntax_errors(game: str, first_error: int, limit: int = 20) -> list[tuple[str, int, int | None]]:
    """Every line of a notation game that cannot be read, as (message, line, column), up to `limit`;
    the game's first error is at line `first_error`. After an unreadable line the reading resumes
    at the next `deal` line, so that one bad trick does not make each later one a trick too many;
    after a line the rest depends on (game, players, cards, rules) it does not resume at all."""
    lines = game.split("\n")
    opening = next(notation.read_games(lines), None)
    if opening is None or opening.error_line is None:
        return []
    base = first_error - opening.error_line  # read as the file numbers them, "line 4 wrote" included
    errors: list[tuple[str, int, int | None]] = []
    while len(errors) < limit:
        first = next(notation.read_games(lines, first=base + 1), None)
        if first is None or first.record is not None or first.error_line is None or first.error is None:
            break
        errors.append((first.error, first.error_line, first.column))
        at = first.error_line - base - 1
        words = lines[at].split() if at < len(lines) else []
        if not words or words[0] in _DEPENDED_ON:
            break
        resume = next((i for i in range(at + 1, len(lines)) if lines[i].split()[:1] == ["deal"]), None)
        if resume is None:
            break
        lines[at:resume] = [""] * (resume - at)  # blanked, not cut: the lines keep their numbers
    return errors


def line_of(game: str, first: int, path: str) -> int | None:
    """The line of a notation game (its lines, the first numbered `first`) that wrote the field at
    `path`, or its nearest written parent: worked out again, only when a problem needs it."""
    games = list(notation.read_games(game.split("\n"), first=first))
    places = games[0].places if games else None
    return None if places is None else notation.line_of(places, path)
