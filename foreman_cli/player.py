"""One player's season: luck, skill and gifts by period, rating over time, accuracy, rivals, positions to learn from."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .ratings import RatingPoint
from .records import GameData

PERIOD_BY_DAY_UP_TO = 62  # a season of up to this many days is shown evening by evening, a longer one by month


@dataclass(frozen=True, slots=True)
class PeriodSplit:
    """His wholly analysed deals of one evening or month, summed: result against quota and its parts."""

    period: str
    deals: int
    against_quota: int  # tricks - quota
    luck: int  # par - quota
    skill: int  # -cost
    gifts: int
    claims: int
    vs_field: float  # luck against the field: par above the archive's mean par for his role, summed


@dataclass(frozen=True, slots=True)
class Lesson:
    """A costly card and its position: his hand, the trick so far, what he played and what was best."""

    game_id: str
    deal: int
    trick: int
    seat: int
    players: tuple[str, str, str]
    hand: tuple[int, ...]  # his cards just before he played (None-free: a full record's hand)
    trick_so_far: tuple[tuple[int, int], ...]  # (seat, card) before his
    played: int
    best: tuple[int, ...]
    sure_before: int  # what a best card would have made: the tricks he could be sure of
    cost: int  # his card made sure_before - cost
    others: tuple[tuple[int, tuple[int, ...]], ...] = ()  # (seat, cards held) of the other two as he played

    @property
    def made(self) -> int:
        return self.sure_before - self.cost


@dataclass(frozen=True)
class PlayerReport:
    name: str
    games: int
    wins: int
    periods: list[PeriodSplit]
    totals: PeriodSplit | None  # the whole season's split (None: no deal wholly analysed)
    rating: list[RatingPoint]
    by_role: object  # QueryResult: role, cards, cost, accuracy
    by_trick: object  # QueryResult: trick, cards, cost, accuracy
    head_to_head: object  # QueryResult: opponent, games, wins, losses
    lessons: list[Lesson]


def player_report(db: str, name: str, lessons: int = 10) -> PlayerReport:
    """`foreman player NAME`: everything the archive says of one player's season."""
    from . import archive
    from .archive.season import player_rows
    rows = player_rows(db, name, lessons)
    history = archive.ratings(db, history_of=name).history.get(name, [])
    periods = _periods(rows.deals)
    lessons_found = (lesson_of(row, game_data(row[0], row[-1])) for row in rows.costly)
    return PlayerReport(name, rows.games, rows.wins, periods, _sum("season", periods) if periods else None,
                        history, rows.by_role, rows.by_trick, rows.head_to_head,
                        [x for x in lessons_found if x is not None])


def _periods(deals: list[tuple]) -> list[PeriodSplit]:
    """His deals summed evening by evening (or month by month over a long season), in order."""
    days = sorted({d[0] for d in deals if d[0]})
    by_day = len(days) <= PERIOD_BY_DAY_UP_TO
    groups: dict[str, list[PeriodSplit]] = {}
    for day, month, par, cost, gifts, claim, luck, tricks, quota, vs_field in deals:
        key = (day if by_day else month) or "undated"
        groups.setdefault(key, []).append(PeriodSplit(key, 1, tricks - quota, luck, -cost, gifts, claim or 0,
                                                      vs_field))
    return [_sum(k, v) for k, v in groups.items()]


def _sum(period: str, parts: list[PeriodSplit]) -> PeriodSplit:
    return PeriodSplit(period, *(sum(getattr(p, f) for p in parts)
                                 for f in ("deals", "against_quota", "luck", "skill", "gifts", "claims", "vs_field")))


@lru_cache(maxsize=8)
def game_data(game_id: str, raw: str) -> GameData | None:
    """A stored record decoded for replay (None if it no longer decodes): the positions of one game
    are often several of a player's costliest cards, and the drill searches them again."""
    from .audit import check_record
    from .reader import RawRecord
    return check_record(RawRecord(game_id, 1, raw)).data


def lesson_of(row: tuple, data: GameData | None) -> Lesson | None:
    """A costly card's position, replayed from its game (None if the record no longer gives it)."""
    from .cards import CARD_OF
    from .engine import position_at
    game_id, deal, trick, card, sure_before, best, cost, _ = row
    if data is None:
        return None
    pos = position_at(data, deal, trick)
    cards = [CARD_OF[t] for t in data.deals[deal - 1].tricks[trick - 1].cards]
    played = CARD_OF[card]
    if pos is None or played not in cards:
        return None
    at = cards.index(played)
    seats = [(pos.to_move + i) % 3 for i in range(3)]
    hand = tuple(sorted(pos.hands[seats[at]]))
    # The search sees every hand, so a position is put with the others' cards as they were then.
    others = tuple((seats[i], tuple(sorted(c for c in pos.hands[seats[i]] if i > at or c != cards[i])))
                   for i in range(3) if i != at)
    return Lesson(game_id, deal, trick, seats[at], data.players, hand,
                  tuple((seats[i], cards[i]) for i in range(at)), played,
                  tuple(CARD_OF[c] for c in best or ()), sure_before, cost, others)
