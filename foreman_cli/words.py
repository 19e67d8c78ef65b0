"""English in messages and views: counts ('1 deal', '3 deals', '2 breaches'), signed figures, and pydantic's words in
foreman's."""

from __future__ import annotations

_PLURALS = {"breach": "breaches", "was": "were"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """The count and the word, singular for one: plural(1, 'deal') is '1 deal', plural(2, 'deal') '2 deals'."""
    return f"{n:,} {word if n == 1 else many or _PLURALS.get(word, word + 's')}"


def head_to_head_title(player: str = "the player") -> str:
    """The head-to-head table's title, saying what its counts are: three play, so a game neither of a pair
    won is neither's win nor loss."""
    return f"Head to head (wins: {player} won; losses: the opponent won; the third player won the rest)"


def signed(value: float) -> str:
    """A figure with its sign, to two places: one that rounds to nothing is +0.00, never -0.00."""
    return f"{round(value, 2) + 0.0:+.2f}"


def shown_id(game_id: str) -> str:
    """A game's id as a view shows it: whole when it could be valid (at most 128 characters); a longer
    one, which the format refused, cut short with its length, so it cannot push a table apart."""
    return game_id if len(game_id) <= 128 else f"{game_id[:60]}... ({len(game_id):,} characters)"


def shown_text(text: str) -> str:
    """Text (a file's name, a message that quotes one) as output can hold it: a byte that did not
    decode as UTF-8, kept by Python as a lone surrogate that no JSON, CSV or DuckDB text can hold,
    written as Python writes bytes, \\xf6."""
    if text.isascii() or undecoded_at(text) is None:
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def undecoded_at(text: str) -> int | None:
    """Where text holds a byte that did not decode as UTF-8 (kept as a lone surrogate), else None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return e.start
    return None


def undecoded_byte(text: str, at: int) -> int:
    """The byte that did not decode at `at` (undecoded_at): surrogateescape keeps byte b as U+DC00 + b."""
    return ord(text[at]) - 0xDC00


def must(message: str) -> str:
    """pydantic's 'Input should be ...' (a record's field, an option's value) as foreman says it: 'must be ...'."""
    return message.replace("Input should be ", "must be ", 1)


class GamesRead:
    """The games an input holds, for a hint when the one asked for is not there: the first few
    named, and how many in all."""

    NAMED = 8

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.count = 0

    def add(self, game_id: str | None) -> None:
        self.count += 1
        if len(self.ids) < self.NAMED and game_id:
            self.ids.append(game_id)

    def hint(self) -> str | None:
        """'the input's games: a, b, ... (12 in all)', or None when there were none."""
        if not self.count:
            return None
        more = f", ... ({self.count} in all)" if self.count > len(self.ids) else ""
        return f"the input's games: {', '.join(self.ids)}{more}"
