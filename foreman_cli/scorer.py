"""Keeping score at the table (`foreman record`): each line of notation checked by the replay as it is entered, then kept in the journal."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from . import audit, convert, engine, notation
from .findings import (ClaimDoubtful, ClaimMismatch, ClaimRefuted, DiscardNotHeld, Finding, PassSequence, Revoke,
                       SeriesGap, SeriesSeqShared, TrickSize, Unfinished)
from .journal import Journal
from .reader import RawRecord
from .results import GameResult
from . import scoreboard
from .words import undecoded_at

COMMANDS = ("undo", "show", "help", "quit")
SeriesPlaces = dict[tuple[str, int], list[tuple[str, int, dict[str, Any]]]]  # a place -> (id, line, facts)
_HANDS = re.compile(r"\$\.deals\[\d+\]\.hands")  # a deal's hands as a whole: one of them not entered yet
_VERDICTS = (ClaimRefuted, ClaimDoubtful, ClaimMismatch)  # what the table asked to be judged, not a slip of the pen


@dataclass(slots=True)
class GameState:
    """The game being kept, as its lines read and replay: `result` is None until the lines make a
    valid record (a game whose header is still being typed), and `problem` says why."""

    lines: list[str]
    record: dict[str, Any] | None = None
    result: GameResult | None = None
    problem: str | None = None
    problem_line: int | None = None  # counted from the game's first line
    awaited: bool = False  # the problem is only a hand still to be entered

    @property
    def breaches(self) -> set[tuple]:
        """What the replay finds in the game (each by its code and place, since its words may change
        as more of the deal is entered), but what only waits for lines still to come."""
        if self.result is None:
            return set()
        return {_breach(f) for f in self.result.findings if not _awaited(f, self.record)}


@dataclass(slots=True)
class Attempt:
    """What a line entered would do: the journal lines it adds, the trick still being typed after
    it, and what the replay finds wrong with it (kept only if the table says so), or why it is refused."""

    lines: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    refused: str | None = None
    state: GameState | None = None
    new_game: bool = False  # a `game` line, kept or refused


@dataclass(frozen=True, slots=True)
class Said:
    """One thing the scorer tells the table: `kind` is 'trick', 'deal', 'game', 'claim', 'verdict',
    'kept' (a flagged line kept as played), 'note' or 'refused'."""

    kind: str
    text: str


class Scorer:
    """A journal and the game at its end: `attempt` a line, `commit` it, `undo` the last. Each line
    of tricks is whole, as in any notation file, unless `by_card`: then a line of fewer than 3
    cards, not numbered nor closed by ';', waits for the rest of its trick."""

    def __init__(self, path: str | Path, by_card: bool = False) -> None:
        self.journal = Journal(path)
        self.by_card = by_card  # a line of fewer than 3 cards continues the trick (the terminal's way)
        self.pending: list[str] = []  # the words of the trick being typed, not yet in the journal
        self._earlier: tuple[int, tuple[set[str], SeriesPlaces]] | None = None  # by the lines they end at
        self.state = self._replay(self._game_lines(self.journal.lines))
        self.live = self.state  # the state with the trick being typed

    # --- what the journal holds ---

    @staticmethod
    def _game_lines(lines: list[str]) -> list[str]:
        """The lines of the last game: from its `game` line on (none before the first)."""
        for i in range(len(lines) - 1, -1, -1):
            # Only a line that begins with the word can be one: the tokens of the others are not needed.
            if lines[i].lstrip().startswith("game") and _first_word(lines[i]) == "game":
                return lines[i:]
        return []

    def earlier_ids(self) -> dict[str, int]:
        """The id of each game the file holds, and the line of its `game` line."""
        ids: dict[str, int] = {}
        lines = self.journal.lines
        for start, _, game_id in _games_in(lines, [_first_word(line) for line in lines]):
            if game_id is not None:
                ids.setdefault(game_id, start + 1)
        return ids

    # --- the games before this one, for the checks across games ---

    def _replay(self, lines: list[str], after_all: bool = False) -> GameState:
        """A game's lines replayed, with the check across games that validate would make of the
        file: a series game's first dealer against the game before it (DEALER_SUCCESSION).
        `after_all`: the game follows every game the file holds (a `game` line being entered)."""
        journal = self.journal.lines
        start = len(journal) + bool(journal and journal[-1].strip()) if after_all \
            else len(journal) - len(self._game_lines(journal))  # the lines before the game's first
        state = replay_lines(lines, start + 1)
        res = state.result
        if res is None or res.series is None:
            return state
        ids, places = self._earlier_games(after_all)
        sid, seq = res.series
        before, here = places.get((sid, seq - 1), []), places.get((sid, seq), [])
        if res.id in ids or len(before) != 1 or here:
            return state  # a repeat, or a place not held once: validate judges no succession there
        found = audit.succession_finding(before[0][2], audit.series_facts(res))
        if found is not None:
            state.result = res.with_findings((found,))
        return state

    def _series_place(self, state: GameState, after_all: bool) -> list[str]:
        """A question when the series place just written is another game's in the file (neither one's
        dealer can then be checked), or lies past places the file does not hold (nor can its dealer)."""
        series = (state.record or {}).get("series")
        if not isinstance(series, dict):
            return []
        _, places = self._earlier_games(after_all)
        sid, seq = series["id"], series["seq"]
        seqs = [n for s, n in places if s == sid]
        following = max(seqs, default=0) + 1
        if held := places.get((sid, seq)):
            game_id, line, _ = held[0]
            return [f"series {convert.word(sid)} {seq} is the place of game {game_id} already (line {line}): with "
                    f"two games in one place neither one's dealer can be checked; the series' next place is "
                    f"{following} ({SeriesSeqShared.code}, as validate will say)"]
        below = max((n for n in seqs if n < seq), default=None)
        if below is not None and below < seq - 1:
            gone = SeriesGap.places(below + 1, seq - 1)
            return [f"series {convert.word(sid)} {seq}: {gone} of the series {'is' if below + 1 == seq - 1 else 'are'} "
                    f"not in this file, so this game's dealer cannot be checked; the series' next place is "
                    f"{following} ({SeriesGap.code}, as validate will say)"]
        return []

    def _asked_before(self) -> set[tuple]:
        """What the replay found before the line, as the table was asked it: in the game's last state
        that made a record (the first of three `hand` lines makes none, yet what was asked stays asked)."""
        state = self.state
        while state.result is None and state.lines and _first_word(state.lines[-1]) == "hand":
            state = self._replay(state.lines[:-1])
        return state.breaches

    def _earlier_games(self, after_all: bool) -> tuple[set[str], SeriesPlaces]:
        """The ids of the games before this one, and where each series game of them sits."""
        lines = self.journal.lines
        end = len(lines) if after_all else len(lines) - len(self._game_lines(lines))
        if self._earlier is None or self._earlier[0] != end:
            self._earlier = (end, _series_places(lines[:end]))
        return self._earlier[1]

    # --- entering a line ---

    def attempt(self, text: str) -> Attempt:
        """What entering `text` (one line of notation) would do; nothing is kept yet."""
        undecoded = undecoded_at(text)
        if undecoded is not None:
            return Attempt(refused=f"not UTF-8 text at column {undecoded + 1} (notation is written in UTF-8)",
                           pending=self.pending)
        text = convert.one_line(text)  # the same tokens, kept as a line no editor breaks
        try:
            toks = notation.tokens(text)
        except notation.NotationError as e:
            return Attempt(refused=e.message, pending=self.pending)
        if not toks:  # a comment is kept where it was typed; a blank line is nothing
            return Attempt(lines=[text.strip()] if text.strip() else [], pending=self.pending, state=self.live)
        first = toks[0].text if not toks[0].quoted else ""
        if first in notation.KEYWORDS:
            attempt = self._attempt_line(text.strip(), first)
            attempt.new_game = first == "game"  # refused too: the lines after it are that game's
            return attempt
        return self._attempt_tricks(toks)

    def _attempt_line(self, line: str, keyword: str) -> Attempt:
        if self.pending:
            return Attempt(refused=f"trick {self._trick_number()} is half entered ({' '.join(self.pending)}): "
                                   "finish it or undo its cards first", pending=self.pending)
        if keyword == "game":
            return self._game_taken(line) or self._checked([line], [], new_game=True)
        if not self.state.lines:
            return Attempt(refused=f"{keyword!r}: start with a 'game' line (game ID)")
        return self._checked([line], [])

    def _game_taken(self, line: str) -> Attempt | None:
        """A `game` line refused when the file holds a game of that id: the first record of an id
        stands, so a second one (a game number not moved on) would count for nothing."""
        toks = notation.tokens(line)
        earlier = self.earlier_ids()
        if len(toks) < 2 or toks[1].text not in earlier:
            return None
        game_id = toks[1].text
        return Attempt(refused=f"game {game_id} is in this file already, at line {earlier[game_id]}: a second "
                               f"record of one id counts for nothing; give this game its own id, such as "
                               f"{_next_id(game_id, set(earlier))}")

    def _attempt_tricks(self, toks: list[notation.Token]) -> Attempt:
        if not self.state.lines:
            return Attempt(refused=f"{toks[0].text!r}: start with a 'game' line (game ID), then players and a deal")
        segments, closed = _segments(toks)
        whole: list[str] = []
        pending = list(self.pending)
        for i, seg in enumerate(segments):
            if not seg and not pending:  # a ';' with no trick before it, as a notation file reads it
                continue
            words_ = pending + [_spelled(t) for t in seg]
            complete = not self.by_card or closed[i] or i < len(segments) - 1 or _is_whole(seg, words_)
            if pending and seg and _numbered(seg):
                return Attempt(refused=f"trick {self._trick_number()} is half entered ({' '.join(pending)}): "
                                       f"{seg[0].text!r} starts another", pending=self.pending)
            if complete:
                whole.append(" ".join(words_))
                pending = []
            else:
                pending = words_
        return self._checked(whole, pending)

    def _checked(self, lines: list[str], pending: list[str], new_game: bool = False) -> Attempt:
        """Replay the game with the lines (and the trick being typed) added; refuse what cannot be
        read, or breaks the format at the new lines or makes the lines before them break it; flag
        what the replay finds that it did not."""
        base = [] if new_game else self.state.lines
        candidate = base + lines + ([" ".join(pending)] if pending else [])
        state = self._replay(candidate, after_all=new_game)
        first_new = len(base) + 1
        # The others' hands are still to come after the first or second `hand` line.
        one_of_three = [_first_word(line) for line in lines] == ["hand"] and state.awaited
        # A fault at a new line, or one an earlier line shows only now (`cards seed` after a trick in
        # other ranks): either way these lines break a game that read before them.
        sound_before = new_game or self.state.problem_line is None
        if state.problem_line is not None and not one_of_three:
            if state.problem_line >= first_new or (sound_before and not state.awaited):
                return Attempt(refused=state.problem, pending=self.pending)
            if not self.state.awaited:  # broken before by a line the file holds (an editor's slip): undo first
                return Attempt(refused=self.what_is_broken() or state.problem, pending=self.pending)
        tricks = sum(map(_is_trick, lines))
        if state.result is None and tricks + bool(pending):
            refused = self.what_is_broken() or f"the game is not a valid record yet: {state.problem}"
            return Attempt(refused=refused, pending=self.pending)
        kept = _canonical(lines, state, tricks, bool(pending))
        before = set() if new_game else self._asked_before()
        flags = [] if state.result is None else _flags(state, before, bool(pending))
        if any(_first_word(line) == "series" for line in lines):
            flags += self._series_place(state, after_all=new_game)
        return Attempt(lines=kept, pending=pending, flags=flags, state=state, new_game=new_game)

    def commit(self, attempt: Attempt) -> list[Said]:
        """Keep what `attempt` adds (each journal line on disk before this returns); what to tell the table."""
        if attempt.refused is not None:
            return [Said("refused", attempt.refused)]
        before = self.state
        if attempt.new_game and self.journal.lines and self.journal.lines[-1].strip():
            self.journal.append("")  # a blank line between games, as convert writes them
        for line in attempt.lines:
            self.journal.append(line)
        self.pending = attempt.pending
        if attempt.lines and attempt.state is not None and not attempt.pending:
            # The attempt's replay is the journal's game: the same lines, typed or canonical.
            lines = self._game_lines(self.journal.lines)
            self.state = replace(attempt.state, lines=lines)
        elif attempt.lines:
            self.state = self._replay(self._game_lines(self.journal.lines))
        self.live = attempt.state if self.pending else self.state
        said = [Said("kept", f) for f in attempt.flags]
        if attempt.new_game and before.result is not None and before.result.status != "won" and before.record:
            said.append(Said("note", f"game {before.record.get('id')} is left without a winner"))
        tricks = sum(map(_is_trick, attempt.lines))
        old = (None, None) if attempt.new_game else (before.record, before.result)
        said += [Said(kind, text) for kind, text in scoreboard.news(*old, self.state.record, self.state.result, tricks)]
        return said

    def undo(self) -> Said:
        """Take back the card last typed, or else the journal's last line."""
        if self.pending:
            dropped = self.pending.pop()
            if all(_is_prefix(w) for w in self.pending):
                self.pending = []
            self.live = self._replay(self.state.lines + [" ".join(self.pending)]) if self.pending else self.state
            return Said("note", f"took back {dropped}")
        line = self.journal.take_back()
        if line is None:
            return Said("refused", "nothing to take back")
        self._earlier = None  # the lines before the game may be others now
        self.state = self.live = self._replay(self._game_lines(self.journal.lines))
        return Said("note", f"took back: {line}")

    def turn(self) -> scoreboard.Turn:
        """What the table is waiting for, with the trick being typed."""
        live, position = self.live, None
        rec, res = self.state.record, self.state.result
        if res is not None and res.data is not None and rec.get("deals") and res.status != "won":
            done = len(rec["deals"][-1]["tricks"])
            position = engine.position_at(res.data, len(rec["deals"]), done + 1)
        return scoreboard.turn(live, bool(self.pending), position)

    def what_is_broken(self) -> str | None:
        """Why the game's lines so far make no record (a line the file holds that does not read), where,
        and how to go on; None when they make one or are still its header."""
        state = self.state
        if scoreboard.turn(state).phase != "broken":
            return None
        where = ""
        if state.problem_line is not None and 0 < state.problem_line <= len(state.lines):
            in_file = len(self.journal.lines) - len(state.lines) + state.problem_line
            where = f" at line {in_file} of {self.journal.path} ({state.lines[state.problem_line - 1]!r})"
        return f"the game so far does not read{where}: {state.problem}; undo takes back its lines, the last first"

    def show(self) -> str:
        """The game so far, in words."""
        return scoreboard.show(self.state, self.pending)

    def next_game(self) -> list[str]:
        """The lines that start the next game like the last one: a new id, the same players, stake
        and rules, the series' next number, and its first deal by the dealer the series allows."""
        rec, res = self.state.record, self.state.result
        if rec is None or not rec.get("players"):
            return []
        new = {"id": _next_id(str(rec.get("id", "game")), set(self.earlier_ids())), "players": rec["players"]}
        for key in ("stake", "currency", "rules", "card_notation"):
            if rec.get(key) is not None:
                new[key] = rec[key]
        if isinstance(rec.get("series"), dict):
            new["series"] = {"id": rec["series"]["id"], "seq": rec["series"]["seq"] + 1}
        dealer = scoreboard.first_dealer(res) if res is not None else None
        return convert.header_lines(new) + ([f"deal {convert.word(dealer)}"] if dealer else [])

    def _trick_number(self) -> int:
        rec = self.state.record
        return len(rec["deals"][-1]["tricks"]) + 1 if rec and rec.get("deals") else 1


def _next_id(last: str, taken: set[str]) -> str:
    """The id after `last`: its trailing number plus one (keeping its width), else '-2' added; never one taken."""
    head = last.rstrip("0123456789")
    digits = last[len(head):]
    number = int(digits) + 1 if digits else 2
    width = len(digits)
    head = head if digits else f"{last}-"
    while f"{head}{number:0{width}d}" in taken:
        number += 1
    return f"{head}{number:0{width}d}"


def _games_in(lines: list[str], words: list[str]) -> list[tuple[int, int, str | None]]:
    """Each game of `lines` (`words`: each line's first word): where its `game` line is, where the
    game ends, and its id as that line writes it."""
    starts = [n for n, word in enumerate(words) if word == "game"]
    games = []
    for start, end in zip(starts, [*starts[1:], len(lines)]):
        toks = notation.tokens(lines[start])
        games.append((start, end, toks[1].text if len(toks) > 1 else None))
    return games


def _series_places(lines: list[str]) -> tuple[set[str], SeriesPlaces]:
    """The ids of the games `lines` hold, and where each series game among them sits: its series
    place -> [(its id, the line of its `game` line, what dealer succession needs of it)]. As
    validate reads a file, the first game of an id stands and a repeat of it is no game."""
    ids: set[str] = set()
    places: SeriesPlaces = {}
    words = [_first_word(line) for line in lines]
    for start, end, game_id in _games_in(lines, words):
        repeat = game_id in ids
        ids.add(game_id)
        if repeat or "series" not in words[start:end]:
            continue
        res = replay_lines(lines[start:end], start + 1).result
        if res is not None and res.series is not None:
            places.setdefault(res.series, []).append((res.id, start + 1, audit.series_facts(res)))
    return ids, places


def replay_lines(lines: list[str], first: int = 1) -> GameState:
    """Read a game's lines of notation and replay it, as every other command would. `first`: the
    file's number of its first line, which the words name a line by ("where line 14 wrote 7D")."""
    if not lines:
        return GameState(lines)
    games = list(notation.read_games(lines, first))
    game = games[-1]
    if game.record is None:
        at = None if game.error_line is None else game.error_line - first + 1
        return GameState(lines, problem=game.error, problem_line=at)
    raw = RawRecord("journal", 1, json.dumps(game.record, ensure_ascii=False, separators=(",", ":")),
                    notation="\n".join(lines))
    res = audit.check_record(raw)
    if res.status == "invalid":
        # The latest line that breaks the format: a line just typed is judged by its own fault, neither
        # hidden by one written before it nor by what is still to come (a header has no deal yet).
        # At one line, a hand still to come is the last thing to say: a slip in the line comes first.
        located = [(line - first + 1, not _HANDS.fullmatch(f.path or ""), f) for f in res.findings
                   if (line := _line_of(f.path, game.places)) is not None]
        line, own_slip, f = max(located, key=lambda found: found[:2]) if located else (None, True, res.findings[0])
        if "line" in f.__struct_fields__:  # the scorer says where, as the file's line or the line typed
            f = msgspec.structs.replace(f, line=None)
        return GameState(lines, game.record, problem=f.message, problem_line=line, awaited=not own_slip)
    return GameState(lines, game.record, res)


def _line_of(path: str | None, places: dict[str, int] | None) -> int | None:
    """The line that wrote the field at `path` or its nearest written parent below the record
    itself (a field missing from the record has no line)."""
    return None if path is None or places is None else notation.line_of(places, path, root=False)


def _first_word(line: str) -> str:
    try:
        toks = notation.tokens(line)
    except notation.NotationError:
        return ""
    return toks[0].text if toks and not toks[0].quoted else ""


def _is_trick(line: str) -> bool:
    """A line of a trick: words that are not a keyword's line (a comment alone is none)."""
    try:
        toks = notation.tokens(line)
    except notation.NotationError:
        return False
    return bool(toks) and (toks[0].quoted or toks[0].text not in notation.KEYWORDS)


def _segments(toks: list[notation.Token]) -> tuple[list[list[notation.Token]], list[bool]]:
    """The tricks of a line, split at ';', and whether each was closed by one."""
    segments: list[list[notation.Token]] = [[]]
    closed = [False]
    for t in toks:
        if t.text == ";" and not t.quoted:
            closed[-1] = True
            segments.append([])
            closed.append(False)
        else:
            segments[-1].append(t)
    if not segments[-1]:
        segments.pop()
        closed.pop()
    return segments, closed


def _spelled(token: notation.Token) -> str:
    return convert.quoted(token.text) if token.quoted else token.text


def _numbered(seg: list[notation.Token]) -> bool:
    return bool(seg) and seg[0].text.endswith(".") and seg[0].text[:-1].isdigit() and not seg[0].quoted


def _is_prefix(word: str) -> bool:
    """A trick number ('5.') or a written leader ('bob:' or ':')."""
    return word.endswith((".", ":"))


def _is_whole(seg: list[notation.Token], words_: list[str]) -> bool:
    """A trick entered whole: numbered, written as '-' (no cards), or with 3 cards or more; fewer
    wait for the rest of the trick."""
    cards = [w for w in words_ if not _is_prefix(w)]
    leader_split = len(words_) > 1 and words_[1] == ":"
    if leader_split:
        cards = cards[1:]
    return _numbered(seg) or cards == ["-"] or len(cards) >= 3


def _canonical(lines: list[str], state: GameState, tricks: int, partial: bool) -> list[str]:
    """The lines as the journal keeps them: tricks in canonical notation, numbered; the rest as typed."""
    rec = state.record
    if not tricks or rec is None or not rec.get("deals"):
        return lines
    written = convert.trick_lines(rec, len(rec["deals"]))
    if partial:
        written = written[:-1]
    fresh = iter(written[len(written) - tricks:])
    return [next(fresh) if _is_trick(line) else line for line in lines]


def _flags(state: GameState, before: set[tuple], partial: bool) -> list[str]:
    """What the replay finds in the game that it did not find before the line: the slips of the pen
    a scorer is asked about (not the verdicts on a claim, nor the game not being finished yet)."""
    last = len(state.result.deals)
    out = []
    for f in state.result.findings:
        if _breach(f) in before or isinstance(f, _VERDICTS) or _awaited(f, state.record):
            continue
        if partial and isinstance(f, TrickSize) and f.deal == last:
            continue
        out.append(_flag_words(f, state))
    return out


def _breach(finding: Finding) -> tuple:
    """A finding as one breach: its code and its place, whatever its words say of it."""
    return finding.code, finding.deal, finding.pass_, finding.trick, finding.player, finding.card


def _awaited(finding: Finding, record: dict[str, Any] | None) -> bool:
    """A finding that only says what the table has not typed yet: the game not finished; in the last
    deal before its first trick, a pass still to come, or a discard of a card that a pass still to
    come may bring (passes come before the kitty in play, but may be typed after it)."""
    if isinstance(finding, Unfinished):
        return True
    if not record or not isinstance(finding, (PassSequence, DiscardNotHeld)):
        return False
    deals = record.get("deals") or []
    if finding.deal != len(deals) or deals[-1].get("tricks"):
        return False
    if isinstance(finding, PassSequence):
        return finding.recorded is None
    return len(deals[-1].get("passes") or []) < 3


def _flag_words(finding: Finding, state: GameState) -> str:
    """A finding of a line just entered, as the scorer says it: a revoke the new card proves, in
    the table's words; anything else as every view says it."""
    if isinstance(finding, Revoke) and finding.proved_by:
        now = len(state.record["deals"][-1]["tricks"])
        newest = [card for card, at in finding.proved_by if at == now]
        if newest and finding.trick != now:
            return scoreboard.revoke_proved(finding, newest[0])
    return finding.text()
