"""`foreman record`'s two ways in: lines read from a pipe, or a person at a terminal with prompts, defaults and completion."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO

from .notation import KEYWORDS
from .scoreboard import HELP, Turn
from .scorer import COMMANDS, Attempt, Said, Scorer

_HEADER_QUESTIONS = (("game", "game id (e.g. fri-2026-12-04-1)", True),
                     ("players", "players, clockwise", True),
                     ("stake", "stake and currency (e.g. 1.00 GBP; Enter: none)", False),
                     ("series", "series id and game number (e.g. fri-2026-12-04 1; Enter: none)", False),
                     ("rules", "house rules (e.g. quota=9-5-2; Enter: the defaults)", False))


def run_piped(scorer: Scorer, lines: Iterable[str], out: IO[str], err: IO[str]) -> int:
    """Enter each line read as if typed: a line the replay flags is kept as played (the table's
    word) and said so; one that cannot be read is refused and named, and after a refused `game`
    line so is every line of its game, which would otherwise go on the game before. Exit status 1
    when a line was refused or a trick was left half entered, else 0. What opening the file found
    wrong is said first."""
    for said in (scorer.journal.repaired, scorer.what_is_broken()):
        if said:
            err.write(said + "\n")
    failed = False
    orphans = _Orphans()
    for number, raw in enumerate(lines, 1):
        text = raw.rstrip("\r\n")
        command = text.strip().lower()
        if command in COMMANDS:
            if command == "quit":
                break
            _say(out, [scorer.undo()] if command == "undo" else [Said("note", scorer.show() if command == "show"
                                                                      else HELP)])
            continue
        attempt = scorer.attempt(text)
        if attempt.new_game:
            orphans.close(err, number if attempt.refused is not None else None)
        elif orphans.game is not None and (attempt.lines or attempt.pending or attempt.refused):
            orphans.lines.append(number)
            failed = True
            continue
        if attempt.refused is not None:
            failed = True
            err.write(f"line {number}: {attempt.refused} (not kept)\n")
            err.flush()
            continue
        _say(out, scorer.commit(attempt))
    orphans.close(err, None)
    if scorer.pending:
        failed = True
        err.write(f"the input ends inside a trick: {' '.join(scorer.pending)} (not kept)\n")
    return 1 if failed else 0


@dataclass(slots=True)
class _Orphans:
    """The lines of a game whose `game` line was refused: left out, and said once, as a range."""

    game: int | None = None  # the refused `game` line
    lines: list[int] = field(default_factory=list)

    def close(self, err: IO[str], next_game: int | None) -> None:
        """Say what was left out of the game refused, if any; `next_game`: the next refused `game` line."""
        if self.lines:
            span = f"line {self.lines[0]}" if len(self.lines) == 1 else f"lines {self.lines[0]}-{self.lines[-1]}"
            err.write(f"{span}: the rest of the game refused at line {self.game} (not kept)\n")
        self.game, self.lines = next_game, []


def _say(out: IO[str], said: list[Said]) -> None:
    for s in said:
        mark = {"kept": "kept as played: ", "refused": "not kept: "}.get(s.kind, "")
        out.write(f"{mark}{s.text}\n")
    out.flush()  # each answer as soon as its line is on disk: a program driving the scorer waits for it


def run_terminal(scorer: Scorer, path: str) -> int:
    """The scorer at a terminal: a prompt that says whose turn it is, Enter for what is due (the
    dealer, the next game, a player's only card), completion of the cards not yet played, and a
    question before a line the replay flags is kept."""
    from prompt_toolkit import PromptSession, print_formatted_text
    from prompt_toolkit.completion import Completer, Completion

    class Cards(Completer):
        def get_completions(self, document, complete_event):
            word = document.get_word_before_cursor(WORD=True)
            turn = scorer.turn()
            pool = list(turn.unplayed) if turn.phase == "trick" else []
            if not document.text_before_cursor.strip(" ").count(" "):
                pool += [*COMMANDS, "claim", "left", "pass", "discard", "kitty", "deal", "game", "note"]
            for option in pool:
                if option.lower().startswith(word.lower()):
                    yield Completion(option, start_position=-len(word))

    session = PromptSession(completer=Cards(), complete_while_typing=False)
    show = print_formatted_text
    show(_welcome(scorer, path))
    while True:
        turn = scorer.turn()
        try:
            if turn.phase == "new-game" and not scorer.next_game():
                if not _ask_header(scorer, session, show):
                    return 0
                continue
            offer = _offer(scorer, turn)
            hint = f" [{offer[0] if len(offer) == 1 else 'Enter: ' + ' · '.join(offer)}]" if offer else ""
            text = session.prompt(f"{turn.prompt()}{hint} › ")
        except (EOFError, KeyboardInterrupt):
            show(f"stopped: every line answered is in {path}; `foreman record {path}` goes on from there")
            return 0
        text = text.strip()
        if text.lower() in COMMANDS:
            if text.lower() == "quit":
                return 0
            show(_command_answer(scorer, text.lower()))
            continue
        for line in ([text] if text else offer):
            if not _enter(scorer, line, session, show):
                break


def _command_answer(scorer: Scorer, command: str) -> str:
    """What `undo`, `show` or `help` does at a terminal, in words."""
    return scorer.undo().text if command == "undo" else scorer.show() if command == "show" else HELP


def _enter(scorer: Scorer, line: str, session, show) -> bool:
    """Enter one line; a flagged one is kept only if the table says so. False when nothing was kept."""
    attempt: Attempt = scorer.attempt(line)
    if attempt.refused is not None:
        show(f"not kept: {attempt.refused}")
        return False
    if attempt.flags:
        for f in attempt.flags:
            show(f"check: {f}")
        answer = session.prompt("keep it as played (the record then holds the breach)? [y/N] ", completer=None)
        if answer.strip().lower() not in ("y", "yes"):
            show("not kept: type it again as it should be")
            return False
    said = scorer.commit(attempt)
    if attempt.flags:
        show("kept as played")
    for s in said:
        if s.kind != "kept":  # already shown as the question's reason
            show(s.text)
    return True


def _offer(scorer: Scorer, turn: Turn) -> list[str]:
    """What Enter alone enters: the next game like the last, the dealer due, a player's only card."""
    if turn.phase in ("new-game", "won"):
        lines = scorer.next_game()
        return [*lines[:2], f"played {datetime.now().astimezone().isoformat(timespec='minutes')}", *lines[2:]] \
            if lines else []
    if turn.phase == "after-deal" and turn.dealer_due:
        return [f"deal {turn.dealer_due}"]
    if turn.phase == "trick" and turn.only_card:
        return [turn.only_card]
    return []


def _ask_header(scorer: Scorer, session, show) -> bool:
    """The first game of a file: its lines asked one by one. A whole line of notation may be typed
    instead: a later question's line skips to it, a `deal` (or any other) line ends the questions, and
    so does a command, as at any prompt. False when the table quits."""
    keywords = [keyword for keyword, _, _ in _HEADER_QUESTIONS]
    asked = 0
    while asked < len(_HEADER_QUESTIONS):
        keyword, question, needed = _HEADER_QUESTIONS[asked]
        answer = session.prompt(f"{question} › ").strip()
        if not answer:
            asked += not needed
            continue
        if answer.lower() in COMMANDS:  # never a game called 'quit'
            if answer.lower() == "quit":
                return False
            show(_command_answer(scorer, answer.lower()))
            return True
        first = answer.split()[0]
        if not _enter(scorer, answer if first in KEYWORDS else f"{keyword} {answer}", session, show):
            continue
        if first in keywords[asked:]:
            asked = keywords.index(first, asked) + 1
        elif first in KEYWORDS:
            return True  # a deal, a note, an earlier question's line: the game goes on at the usual prompt
        else:
            asked += 1
    show("now the first deal: `deal NAME` (the dealer, chosen by lot)")
    return True


def _welcome(scorer: Scorer, path: str) -> str:
    turn = scorer.turn()
    where = {"new-game": "a new game", "header": "the game's lines", "trick": f"deal {turn.deal}, trick {turn.trick}",
             "after-deal": f"after deal {turn.deal}", "won": "the next game", "broken": "a problem"}[turn.phase]
    repaired = f"\n{scorer.journal.repaired}" if scorer.journal.repaired else ""
    broken = f"\n{scorer.what_is_broken()}" if turn.phase == "broken" else ""
    return f"foreman record {path}: going on at {where}. Type help for the lines and commands.{repaired}{broken}"


def run(path: str, interactive: bool | None = None) -> int:
    """Keep score in the journal `path` (created if new, resumed if not): from the terminal, or line
    by line from standard input when it is not one."""
    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    scorer = Scorer(path, by_card=interactive)
    try:
        if interactive:
            return run_terminal(scorer, path)
        return run_piped(scorer, _notation_lines(sys.stdin), sys.stdout, sys.stderr)
    finally:
        scorer.journal.close()


def _notation_lines(stdin: IO[str]) -> IO[str]:
    """Standard input read as notation is: UTF-8 whatever the locale (a Latin-1 terminal would read
    a piped 'Björn' as 'BjÃ¶rn'), line ends as a file's; a byte that is not UTF-8 is kept apart for
    the scorer to refuse its line."""
    raw = getattr(stdin, "buffer", None)
    if raw is None:  # already text (a test's stream): nothing to decode
        return stdin
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape", newline=None)
