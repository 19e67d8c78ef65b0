"""Play analysis (docs/analysis.md): sure tricks before every card, the best cards, each card's cost."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from . import core, engine
from .board import HAND_SIZE, Board
from .errors import UsageError
from .cards import BIT, CARD_OF, CANONICAL, hand_cards
from .claims import LEFT_UNEVEN, NOT_RECORDED, not_one_deck
from .records import GameData
from .results import DealResult, GameResult
from .bounds import groups, lowest
from .solver import live_cards
from .words import GamesRead


@dataclass(frozen=True, slots=True)
class PlayAnalysis:
    """One card played: what each seat could be sure of before it, the best cards, its cost."""

    trick: int
    seat: int
    card: int
    sure_before: tuple[int | None, int | None, int | None]
    best: tuple[int, ...] | None  # every card as good as the best (None: not solved)
    cost: int | None


@dataclass(frozen=True, slots=True)
class LuckSkill:
    """What one player's deal came to, split: tricks = par - cost + gifts (+ claim)."""

    par: int  # his sure tricks at the first lead: what his cards were worth
    cost: int  # tricks his own cards gave away
    gifts: int  # tricks the other two's cards gave him
    claim: int | None  # credited minus sure at the claim, where a claim ended the deal
    tricks: int  # what he was credited with
    quota: int

    @property
    def luck(self) -> int:
        """What the cards gave him against his role's quota."""
        return self.par - self.quota

    @property
    def skill(self) -> int:
        return -self.cost


@dataclass(frozen=True, slots=True)
class DealAnalysis:
    """The analysed plays of one deal, and where the deal turned."""

    deal: int
    from_trick: int
    plays: tuple[PlayAnalysis, ...]
    turned: tuple[int, int] | None  # (trick, seat of the winner)
    stopped: str | None = None  # why the analysis ends before the recorded play does
    split: tuple[LuckSkill, LuckSkill, LuckSkill] | None = None  # None: analysed in part

    @property
    def exact(self) -> bool:
        """True when every figure of every play was solved (costs and sure tricks alike)."""
        return _all_solved(self.plays)

    def player_totals(self, seat: int) -> tuple[int, int, float | None]:
        """(cards analysed, their total cost, share with cost 0) for a seat."""
        costs = [p.cost for p in self.plays if p.seat == seat and p.cost is not None]
        return len(costs), sum(costs), (costs.count(0) / len(costs) if costs else None)


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """The analysis of one game's deals."""

    id: str
    source: str
    players: tuple[str, str, str]
    deals: tuple[DealAnalysis, ...]


def analyze_game(res: GameResult, deal: int | None = None, from_trick: int = 1,
                 budget: int | None = None, on_deal=None, jobs: int = 1) -> GameAnalysis:
    """Analyse every deal of a replayed game (or one), from trick `from_trick` on, its deals over
    `jobs` worker processes; `on_deal()` is called as each deal is done (a progress bar)."""
    out = []
    for answer in _answers(_deal_tasks(res, deal, from_trick, budget), jobs):
        out.append(answer)
        if on_deal is not None:
            on_deal()
    return GameAnalysis(res.id, res.source, res.data.players, tuple(out))


def _answers(tasks: Iterable[tuple], jobs: int) -> Iterator[DealAnalysis]:
    """The deal tasks' analyses in task order. A deal's three seats are searched as three tasks (each
    seat's searches use only his own earlier values), in this process or over `jobs` workers, so
    that even one deal keeps every worker busy."""
    waiting: deque[tuple] = deque()

    def seat_tasks() -> Iterator[tuple]:
        for task in tasks:
            waiting.append(task)
            yield from ((*task, x) for x in range(3))

    if jobs > 1:
        from .workers import ordered_map
        seats = ordered_map(_seat_task, seat_tasks(), jobs)
    else:
        seats = map(_seat_task, seat_tasks())
    for parts in zip(seats, seats, seats):  # one iterator three times: the answers in threes, a deal's seats
        yield _combined(*waiting.popleft(), parts)


def _deal_tasks(res: GameResult, deal: int | None, from_trick: int, budget: int | None) -> list[tuple]:
    """The independent analyses of a game, a task a deal (a worker is given one of its seats)."""
    numbers = [deal] if deal is not None else [d.number for d in res.deals]
    return [(res.data, n, res.deals[n - 1], from_trick, budget) for n in numbers if n <= len(res.deals)]


def _seat_task(task: tuple) -> _SeatAnalysis:
    return _seat_analysis(*task)


def _start(data: GameData, deal_number: int) -> tuple[Board | None, str | None]:
    """The board at the first lead of deal n, or why it cannot be analysed."""
    pos = engine.position_at(data, deal_number, 1)
    if pos is None:
        return None, "the game ended before this deal"
    left = bool(data.deals) and getattr(data.deals[deal_number - 1], "left", None) is not None
    if left and (any(pos.unknown) or any(len(hand) != HAND_SIZE for hand in pos.hands)):
        return None, LEFT_UNEVEN  # a position that is not the table's
    if any(pos.unknown):  # never guess what the record does not show
        return None, NOT_RECORDED
    masks = [sum(BIT[c] for c in set(hand)) for hand in pos.hands]
    if (why := not_one_deck(masks, [len(hand) for hand in pos.hands])) is not None:
        return None, why
    return Board(masks, pos.to_move, (0, 0, 0), 0, data.rules.target), None


def _breach(board: Board, seat_of: dict[str, int], trick) -> str | None:
    """Why a recorded trick cannot be followed on the board (a breach of play), or None."""
    if seat_of[trick.leader] != board.leader:
        return "a lead out of turn"
    if len(trick.cards) != 3:
        return "a trick without 3 cards"
    probe = board.copy()
    for tok in trick.cards:
        card = CARD_OF[tok]
        if not probe.legal_mask() & BIT[card]:
            return f"{CANONICAL[card]} was not a legal card"
        probe.play(card)
    return None


def analyze_deal(data: GameData, deal_number: int, deal: DealResult, from_trick: int = 1,
                 budget: int | None = None) -> DealAnalysis:
    """Analyse the recorded plays of deal n (`deal`: its replayed result) from trick `from_trick`
    until the play stops or a breach."""
    return _combined(data, deal_number, deal, from_trick, budget,
                     [_seat_analysis(data, deal_number, deal, from_trick, budget, x) for x in range(3)])


@dataclass(frozen=True, slots=True)
class _SeatAnalysis:
    """One seat's figures in a deal: each play analysed with only his figures filled in (his sure
    tricks before it; for his own cards the best cards and the cost), and his sure tricks where the
    recorded play ends (None: not known)."""

    plays: tuple[PlayAnalysis, ...]
    end: int | None


def _followed(data: GameData, deal_number: int, board: Board, from_trick: int, visit) -> str | None:
    """Follow the recorded plays of deal `deal_number` on `board`, calling visit(trick, card) before
    each card of trick `from_trick` on; why the play could not be followed (a breach), or None."""
    for tn, t in enumerate(data.deals[deal_number - 1].tricks, 1):
        if board.is_over():
            break
        why = _breach(board, data.seat, t)
        if why:
            return f"trick {tn}: {why}"
        for tok in t.cards:
            card = CARD_OF[tok]
            if tn >= from_trick:
                visit(tn, card)
            board.play(card)
    return None


def _seat_analysis(data: GameData, deal_number: int, deal: DealResult, from_trick: int, budget: int | None,
                   x: int) -> _SeatAnalysis:
    """Seat x's searches of deal n, each play in turn, carrying what his earlier values prove."""
    board, _ = _start(data, deal_number)
    if board is None:
        return _SeatAnalysis((), None)
    search = core.SureTricks(x, board)
    plays: list[PlayAnalysis] = []
    known = _Known()

    def visit(tn: int, card: int) -> None:
        nonlocal known
        play = _seat_play(board, search, tn, card, budget, known)
        plays.append(play)
        known = known.after(play)

    stopped = _followed(data, deal_number, board, from_trick, visit)
    return _SeatAnalysis(tuple(plays), None if stopped else _end_value(board, deal, search, budget, known))


def _combined(data: GameData, deal_number: int, deal: DealResult, from_trick: int, budget: int | None,
              parts: list[_SeatAnalysis] | tuple[_SeatAnalysis, ...]) -> DealAnalysis:
    """The deal's analysis from its three seats' figures (the arguments before them are the deal's
    task, whose budget the seats' searches have already used)."""
    board, why = _start(data, deal_number)
    if board is None:
        return DealAnalysis(deal_number, from_trick, (), None, why)
    plays = [_merged([part.plays[i] for part in parts]) for i in range(len(parts[0].plays))]
    stopped = _followed(data, deal_number, board, from_trick, lambda tn, card: None)
    unfinished = stopped or (not board.is_over() and deal.claim is None)  # nothing to value where the record ends
    end = None if unfinished else tuple(part.end for part in parts)
    winner = next((s for s in range(3) if deal.decided and deal.tricks[s] >= board.target), None)
    starts: dict[int, int | None] = {}  # trick -> the eventual winner's sure tricks at its start
    for p in plays if winner is not None else ():
        starts.setdefault(p.trick, p.sure_before[winner])  # the first card analysed of a trick is its lead
    claimed = len(data.deals[deal_number - 1].tricks) + 1
    if winner is not None and end is not None and not board.is_over() and claimed >= from_trick:
        starts[claimed] = end[winner]  # a claim ended the deal: the start of the first claimed trick
    split = _split(plays, end, deal, board.is_over()) if from_trick == 1 and end is not None else None
    return DealAnalysis(deal_number, from_trick, tuple(plays), _turned(starts, winner, board.target), stopped, split)


def _all_solved(plays: Iterable[PlayAnalysis]) -> bool:
    """Every figure of these plays solved within the budget: costs and sure tricks alike."""
    return all(p.cost is not None and None not in p.sure_before for p in plays)


def _end_value(board: Board, deal: DealResult, search: core.SureTricks, budget: int | None,
               known: _Known) -> int | None:
    """The search's seat's sure tricks where the recorded play ends: his tricks when the deal is
    over, the searched value at a claim, None for a deal the record leaves unfinished."""
    if board.is_over():
        return board.tallies[search.x]
    if deal.claim is None:
        return None
    return known.value(search, board, budget)


def _split(plays: list[PlayAnalysis], end: tuple[int | None, ...], deal: DealResult,
           over: bool) -> tuple[LuckSkill, LuckSkill, LuckSkill] | None:
    """Par, cost and gifts of each seat (docs/analysis.md, "Luck and skill"), when every position
    of the deal was solved; None otherwise."""
    if None in end or not _all_solved(plays):
        return None
    values = [p.sure_before for p in plays] + [end]
    out = []
    for s in range(3):
        gifts = sum(values[i + 1][s] - values[i][s] for i, p in enumerate(plays) if p.seat != s)
        cost = sum(p.cost for p in plays if p.seat == s)
        claim = None if over else deal.tricks[s] - end[s]
        out.append(LuckSkill(values[0][s], cost, gifts, claim, deal.tricks[s], deal.quotas[s]))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Known:
    """What the plays analysed so far prove about each seat's sure tricks at the next position:
    a guess (his last value), a floor (his value before a card an opponent played: that card can
    only have helped him) and his exact value (the mover's, after the card he played)."""

    guess: tuple[int | None, ...] = (None, None, None)
    floor: tuple[int | None, ...] = (None, None, None)
    exact: tuple[int | None, ...] = (None, None, None)

    def after(self, play: PlayAnalysis) -> _Known:
        """What is known at the position after play p."""
        guess = tuple(v if v is not None else self.guess[s] for s, v in enumerate(play.sure_before))
        floor = tuple(None if s == play.seat else v for s, v in enumerate(play.sure_before))
        mine = None if play.cost is None else play.sure_before[play.seat] - play.cost
        return _Known(guess, floor, tuple(mine if s == play.seat else None for s in range(3)))

    def value(self, search: core.SureTricks, board: Board, budget: int | None) -> int | None:
        """The sure tricks of the search's seat at `board`, searched only where not known."""
        x = search.x
        if self.exact[x] is not None:
            return self.exact[x]
        return search.sure(board, budget, self.guess[x], self.floor[x])


def _analyse_play(board: Board, searches: list[core.SureTricks], tn: int, card: int,
                  budget: int | None, known: _Known = _Known()) -> PlayAnalysis:
    """One play analysed for all three seats (each search its seat's)."""
    return _merged([_seat_play(board, searches[x], tn, card, budget, known) for x in range(3)])


def _seat_play(board: Board, search: core.SureTricks, tn: int, card: int, budget: int | None,
               known: _Known) -> PlayAnalysis:
    """`card` about to be played on `board`, analysed for the search's seat alone: his sure tricks
    before it and, when it is his card, the best cards and its cost; the other figures None."""
    x, mover = search.x, board.turn
    sure: list[int | None] = [None, None, None]
    if x != mover:
        sure[x] = known.value(search, board, budget)
        return PlayAnalysis(tn, mover, card, tuple(sure), None, None)
    found = _mover_values(board, search, card, budget, known)
    if found is None:
        return PlayAnalysis(tn, mover, card, tuple(sure), None, None)
    sure[x], best, mine = found
    return PlayAnalysis(tn, mover, card, tuple(sure), best, sure[x] - mine)


def _merged(parts: list[PlayAnalysis]) -> PlayAnalysis:
    """One play's analysis from its three seats' parts (part s holds seat s's figures)."""
    own = parts[parts[0].seat]
    sure = tuple(parts[s].sure_before[s] for s in range(3))
    return PlayAnalysis(own.trick, own.seat, own.card, sure, own.best, own.cost)


def _mover_values(board: Board, search: core.SureTricks, card: int, budget: int | None,
                  known: _Known) -> tuple[int, tuple[int, ...], int] | None:
    """The mover's sure tricks, his best cards and what the played card leaves him; None when a
    search ran out of budget. The played card is valued exactly; each other run is only asked
    whether it reaches the best value so far (one test where it does not)."""
    x = search.x
    floor = known.exact[x] if known.exact[x] is not None else known.floor[x]
    runs = groups(board.legal_mask(), live_cards(board))
    played = next(run for run in runs if run & BIT[card])
    mine = _after(board, played, lambda: search.sure(board, budget, known.guess[x] if floor is None else floor))
    if mine is None:
        return None
    best_value = mine if floor is None else max(mine, floor)
    best = [played] if mine == best_value else []
    for run in runs:
        if run == played:
            continue
        value = _after(board, run, lambda: search.sure(board, budget, best_value, best_value - 1))
        if value is None:
            return None
        if value > best_value:
            best_value, best = value, []
        if value == best_value:
            best.append(run)
    if not best:
        raise AssertionError(f"no card of seat {x} reaches its proven floor {floor}")
    return best_value, tuple(c for run in runs if run in best for c in hand_cards(run)), mine


def _after(board: Board, run: int, search):
    """search() on the board after the lowest card of `run`, the board left as it was."""
    board.play(lowest(run))
    try:
        return search()
    finally:
        board.undo()


def _turned(starts: dict[int, int | None], winner: int | None, target: int) -> tuple[int, int] | None:
    """The first trick from whose start on the winner's sure tricks stay at the target."""
    if winner is None or not starts or any(v is None for v in starts.values()):
        return None
    turned = None
    for tn in sorted(starts, reverse=True):
        if starts[tn] < target:
            break
        turned = tn
    if turned is None:
        # Not sure at the start of any trick: the deciding trick itself turned it.
        return max(starts), winner
    if turned == min(starts) and turned > 1:
        return None  # sure from the first trick analysed: it may have turned before it
    return turned, winner


def to_dict(analysis: GameAnalysis) -> dict:
    """One game's analysis as the JSON object of `foreman analyze --json` (docs/analysis.md)."""
    seat_names = analysis.players
    deals = []
    for d in analysis.deals:
        plays = [{"trick": p.trick, "player": seat_names[p.seat], "card": CANONICAL[p.card],
                  "sure_before": {seat_names[s]: p.sure_before[s] for s in range(3)},
                  "best": None if p.best is None else [CANONICAL[c] for c in p.best], "cost": p.cost}
                 for p in d.plays]
        players = {seat_names[s]: _player_dict(d, s) for s in range(3) if d.player_totals(s)[0] or d.split}
        deals.append({"deal": d.deal, "from_trick": d.from_trick, "exact": d.exact, "plays": plays,
                      "players": players,
                      "turned": None if d.turned is None else {"trick": d.turned[0], "player": seat_names[d.turned[1]]},
                      "stopped": d.stopped})
    return {"id": analysis.id, "source": analysis.source, "deals": deals}


def _player_dict(deal: DealAnalysis, seat: int) -> dict:
    """A seat's figures in a deal: accuracy, and the split of his tricks (null when analysed in part)."""
    cards, cost, acc = deal.player_totals(seat)
    out = {"cards": cards, "cost": cost, "accuracy": None if acc is None else round(acc, 4)}
    sp = deal.split[seat] if deal.split is not None else None
    out.update({"par": sp.par, "gifts": sp.gifts, "luck": sp.luck, "tricks": sp.tricks} if sp is not None
               else {"par": None, "gifts": None, "luck": None, "tricks": None})
    if sp is not None and sp.claim is not None:
        out["claim"] = sp.claim
    return out


def analyze_results(results, game_id: str | None = None, deal: int | None = None, from_trick: int = 1,
                    budget: int | None = None, on_deal=None, jobs: int = 1) -> Iterator[GameAnalysis | GameResult]:
    """Analyse each replayable game of an audit (or the one with `game_id`); invalid ones pass through.

    With jobs > 1 the deals are searched in that many worker processes, a deal a task; the games
    come out in input order, the same as with one.
    """
    pending: deque[list] = deque()  # [game, its deal tasks not yet answered, the deals answered]
    tasks = _tasks_of(_chosen(results, game_id, deal), deal, from_trick, budget, pending)
    for answer in _answers(tasks, jobs):
        yield from _finished(pending)
        pending[0][1] -= 1
        pending[0][2].append(answer)
        if on_deal is not None:
            on_deal()
        yield from _finished(pending)
    yield from _finished(pending)


def _chosen(results, game_id: str | None, deal: int | None) -> Iterator[GameResult]:
    """The games to analyse: one game's first copy when `game_id` is given, else every first copy.
    A copy in doubt (another record, or one not compared) passes through unanalysed, to be named."""
    found, games = False, GamesRead()
    for r in results:
        if not r.repeat:
            games.add(r.id)
        if (game_id is not None and r.id != game_id) or (r.repeat and not r.in_doubt):
            continue  # a repeat is analysed once, as its first copy
        found = True
        if deal is not None and not _not_analysed(r) and deal > len(r.deals):
            raise UsageError(f"--deal {deal}: game {r.id} has {len(r.deals)} deal{'s' if len(r.deals) != 1 else ''}",
                             hint="see 'foreman analyze --help'")
        yield r
    if game_id is not None and not found:
        raise UsageError(f"no game {game_id!r} in the input", hint=games.hint())


def _tasks_of(games: Iterable[GameResult], deal: int | None, from_trick: int, budget: int | None,
              pending: deque) -> Iterator[tuple]:
    """Each game's deal tasks in order, noting the game in `pending` before its first task goes."""
    for r in games:
        tasks = [] if _not_analysed(r) else _deal_tasks(r, deal, from_trick, budget)
        pending.append([r, len(tasks), []])
        yield from tasks


def _not_analysed(result: GameResult) -> bool:
    """A game that passes through as its result: one that cannot be replayed, or a copy in doubt."""
    return result.status == "invalid" or result.data is None or result.repeat


def _finished(pending: deque) -> Iterator[GameAnalysis | GameResult]:
    """The games at the head of `pending` whose every deal is answered, in order."""
    while pending and pending[0][1] == 0:
        result, _, deals = pending.popleft()
        if _not_analysed(result):
            yield result
        else:
            yield GameAnalysis(result.id, result.source, result.data.players, tuple(deals))


def card_values(data: GameData, deal: int, trick: int, card: int,
                budget: int | None = None) -> dict[int, int | None] | None:
    """What each legal card of the player who played `card` in (deal, trick) would have made: his
    sure tricks after it (None where the search ran out of budget). None when the recorded play
    up to that card cannot be followed on a board (hands not recorded, a breach before it)."""
    board, _ = _start(data, deal)
    if board is None:
        return None
    seat_of = data.seat
    for tn, t in enumerate(data.deals[deal - 1].tricks[:trick], 1):
        if _breach(board, seat_of, t) is not None:
            return None
        for tok in t.cards:
            played = CARD_OF[tok]
            if tn == trick and played == card:
                return _values_of_each(board, budget)
            board.play(played)
    return None


def _values_of_each(board: Board, budget: int | None) -> dict[int, int | None]:
    mover = board.turn
    search = core.SureTricks(mover, board)
    out: dict[int, int | None] = {}
    for run in groups(board.legal_mask(), live_cards(board)):
        value = _after(board, run, lambda: search.sure(board, budget))
        out.update((c, value) for c in hand_cards(run))
    return out
