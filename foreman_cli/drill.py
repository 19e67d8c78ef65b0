"""`foreman drill`: a player's costliest positions one at a time, a card asked for, judged by the exact search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from .cards import CANONICAL, EN_TOKENS, names, parse_token, t_rank_suit
from .player import Lesson, game_data, lesson_of
from .words import plural

QUIT = {"q", "quit", "exit"}
SKIP = {"", "?", "skip", "pass"}


@dataclass(frozen=True, slots=True)
class Judgement:
    """What a card chosen in a drill comes to against the best there."""

    card: int
    made: int | None  # his sure tricks after it (None: not solved in the budget)
    best: int  # what a best card keeps

    @property
    def among_best(self) -> bool:
        return self.made == self.best

    @property
    def cost(self) -> int | None:
        return None if self.made is None else self.best - self.made


def judge(values: dict[int, int | None], card: int, best: int) -> Judgement:
    return Judgement(card, values.get(card), best)


def read_card(text: str, legal: set[int]) -> tuple[int | None, str]:
    """The card a line names, or why it names none of the legal cards ('QH', 'qh', '10h', '10♥' all read)."""
    token = text.strip().upper()
    code = parse_token(token, EN_TOKENS)
    suit = t_rank_suit(token)
    if code is None and suit is not None:  # refused as in records: T is the ten to some, the ace to others
        return None, f"{text.strip()!r}: write 10{suit} for the ten or A{suit} for the ace"
    if code is None:
        return None, f"{text.strip()!r} is not a card: write it as rank then suit, e.g. QH or 10S"
    if code not in legal:
        return None, f"{CANONICAL[code]} is not one of your legal cards here: {' '.join(names(legal))}"
    return code, ""


def run_drill(rows: list[tuple], lines: Iterator[str], say: Callable[[str], None],
              budget: int | None = None) -> tuple[int, int]:
    """Put each costly position of `rows` (archive.season.player_rows' `costly`) to the player, read
    his card from `lines`, and say what it comes to; returns (positions answered, among the best)."""
    from .analysis import card_values
    from .season_view import position_words
    answered = best_found = 0
    for n, row in enumerate(rows, 1):
        data = game_data(row[0], row[-1])
        lesson = lesson_of(row, data)
        values = card_values(data, lesson.deal, lesson.trick, lesson.played, budget) if lesson else None
        if lesson is None or values is None:
            continue
        say(f"Position {n} of {len(rows)}")
        for line in position_words(lesson):  # what he saw, not what he played
            say(line)
        verdict, stop = _ask(lesson, values, lines, say)
        if verdict is not None:
            answered += 1
            best_found += verdict.among_best
        say((_verdict_words(lesson, verdict) + " " if verdict is not None else "") + _answer(lesson))
        if stop:
            break
    say(f"{plural(answered, 'position')} answered, {best_found} among the best.")
    return answered, best_found


def _ask(lesson: Lesson, values: dict[int, int | None], lines: Iterator[str], say) -> tuple[Judgement | None, bool]:
    """Read lines until one names a legal card: (its verdict, False); (None, False) on a skip;
    (None, True) on a quit or the end of the input."""
    while True:
        say("Your card? (Enter: show the answer, q: stop)")
        text = next(lines, None)
        if text is None or text.strip().lower() in QUIT:
            return None, True
        if text.strip().lower() in SKIP:
            return None, False
        card, why = read_card(text, set(values))
        if card is not None:
            return judge(values, card, lesson.sure_before), False
        say(why)


def _verdict_words(lesson: Lesson, verdict: Judgement) -> str:
    if verdict.made is None:
        return f"{CANONICAL[verdict.card]}: not solved within the budget."
    if verdict.among_best:
        return f"{CANONICAL[verdict.card]}: among the best, it keeps {plural(verdict.made, 'sure trick')}."
    return (f"{CANONICAL[verdict.card]} costs {plural(verdict.cost, 'trick')}: sure of {verdict.made} after it, "
            f"{verdict.best} with the best.")


def _answer(lesson: Lesson) -> str:
    return (f"Best: {' '.join(names(lesson.best))}. At the table {lesson.players[lesson.seat]} played "
            f"{CANONICAL[lesson.played]} (cost {lesson.cost}).")
