"""The exact solver of Foreman endings: sure tricks (paranoid value), claims, and the lines proving them.

This is the reference: `core.py` has the compiled fast path of each search, tested against it for
the same values. Both play one card per run of equivalent cards (cards of one suit in one hand
with no live card of another hand or of the trick between them; played cards are gaps) and make
zero-window tests on "X ends the deal with at least v tricks", with the bounds of bounds.py at
the start of a trick and inside one, and bounds stored at trick boundaries for the exact
position and for its class (partition search), without the tallies where they cannot matter
(docs/solver.md). The compiled search keeps the same tables in fixed memory.
"""

from __future__ import annotations

from .board import Board
from .bounds import decided, from_card, groups, lowest, start_bound, trick_bound
from .cards import SUIT_MASK, SUIT_OF


class OutOfBudget(Exception):
    """The search needed more nodes than its budget (internal: callers turn it into 'not solved')."""


def live_cards(board: Board) -> int:
    """Every card still in play: the three hands and the trick in progress (what a run is cut by)."""
    live = board.hands[0] | board.hands[1] | board.hands[2]
    for c in board.trick:
        live |= 1 << c
    return live


def _lead_score(board: Board, x: int, run: int, live: int) -> int:
    """A lead's place in the order, highest first: a run holding its suit's top card; for X then
    suits both others hold before suits one of them lacks, each the suits they hold few cards of
    first, then (losing leads) the suits he holds few cards of; for an opponent a suit X lacks, or
    one in which his partner holds the top card, then suits X holds few cards of (measured in
    docs/solver.md)."""
    hands, leader = board.hands, board.leader
    hi = run.bit_length() - 1
    suit = SUIT_MASK[SUIT_OF[hi]]
    top = not live & suit & ~((2 << hi) - 1)
    mine = (hands[x] & suit).bit_count()
    if leader == x:  # a suit both must follow first: a void one's discards multiply the lines to refute
        theirs_a, theirs_b = (hands[(x + 1) % 3] & suit).bit_count(), (hands[(x + 2) % 3] & suit).bit_count()
        score = (1000 if top else 0) - theirs_a - theirs_b - (0 if theirs_a and theirs_b else 100)
        return 32 * score + (0 if top else 31 - mine)  # among equal losing leads, the suit X holds fewest of
    if top:
        return 1000 - mine
    if not mine:
        return 20
    partner_on_top = hands[3 - leader - x] >> ((live & suit).bit_length() - 1) & 1
    return (30 if partner_on_top else 0) - mine


def _discard_key(board: Board, x: int, run: int) -> tuple[int, int]:
    """X's discards: from his longest suit first (a card there is most easily spared), among suits as
    long the one the others hold fewest cards of (measured in docs/solver.md)."""
    hands = board.hands
    suit = SUIT_MASK[SUIT_OF[lowest(run)]]
    return -(hands[x] & suit).bit_count(), ((hands[(x + 1) % 3] | hands[(x + 2) % 3]) & suit).bit_count()


def ordered_runs(board: Board, x: int) -> list[int]:
    """The mover's runs of equivalent legal cards, the likeliest best first (for X's side or not)."""
    live = live_cards(board)
    runs = groups(board.legal_mask(), live)
    if not board.trick:
        return sorted(runs, key=lambda r: -_lead_score(board, x, r, live))
    best, winner = board.winning()
    ally_winning = (winner == x) == (board.turn == x)
    led = SUIT_OF[board.trick[0]]
    if board.turn == x and not board.hands[x] & SUIT_MASK[led]:
        return sorted(sorted(runs), key=lambda r: _discard_key(board, x, r))
    beats = [r for r in runs if SUIT_OF[lowest(r)] == led and r.bit_length() - 1 > best]
    others = [r for r in runs if r not in beats]
    order = sorted(others) + sorted(beats) if ally_winning else sorted(beats) + sorted(others)
    # X second: his cheapest card sure of the trick first, so that the third hand's cards all lose alike
    if board.turn == x and len(board.trick) == 1:
        bar = max(best, (board.hands[(x + 1) % 3] & SUIT_MASK[led]).bit_length() - 1)
        sure = next((r for r in sorted(beats) if r.bit_length() - 1 > bar), None)
        if sure is not None:
            order.remove(sure)
            order.insert(0, sure)
    return order


def ordered_moves(board: Board, x: int) -> list[int]:
    """One card per run of the mover's legal cards (its lowest), the likeliest best first."""
    return [lowest(r) for r in ordered_runs(board, x)]


def close_runs(rel: int, runs: list[int]) -> int:
    """Widen ranks so no run of the mover's equivalent cards is split: one card tried stands for
    its run only while the run's cards stay equivalent."""
    for r in runs:
        if r & rel:
            rel |= from_card(lowest(r))
    return rel


def holders(board: Board) -> tuple[tuple[int, ...], ...]:
    """Each suit's live cards as the seats holding them, highest first (the position by relative rank)."""
    h0, h1 = board.hands[0], board.hands[1]
    every = board.hands[0] | board.hands[1] | board.hands[2]
    out = []
    for s in range(4):
        m, seats = every & SUIT_MASK[s], []
        while m:
            c = m.bit_length() - 1
            m ^= 1 << c
            seats.append(0 if h0 >> c & 1 else 1 if h1 >> c & 1 else 2)
        out.append(tuple(seats))
    return tuple(out)


def tallies_matter(board: Board, x: int, v: int, rem: int) -> bool:
    """Whether an opponent can reach the target before "X ends with v" is decided; if none can,
    the test is one on the tricks still to come, whatever the tallies."""
    t = board.tallies
    return any(o != x and t[o] + rem >= board.target and t[x] + t[o] + rem - board.target >= v for o in range(3))


def top_counts(rel: int, every: int) -> tuple[int, int, int, int]:
    """How many live cards of each suit a set of ranks covers (its top m, since ranks run upward)."""
    return tuple((every & SUIT_MASK[s] & rel).bit_count() for s in range(4))


def counts_rel(counts: tuple[int, ...], every: int) -> int:
    """Each suit's top m live cards, m from `counts`, as a set of ranks of this position."""
    rel = 0
    for s, m in enumerate(counts):
        cards = every & SUIT_MASK[s]
        if m:
            for _ in range(m - 1):
                cards ^= 1 << (cards.bit_length() - 1)
            rel |= from_card(cards.bit_length() - 1)
    return rel


class _Class:
    """The keys of a position at a trick's start: its class (leader, tricks left, suit lengths, the
    tallies or None when they cannot matter), its seats by relative rank, X's tricks when free."""

    __slots__ = ("key", "seats", "base", "every")

    def __init__(self, board: Board, x: int, v: int, rem: int) -> None:
        self.seats = holders(board)
        free = not tallies_matter(board, x, v, rem)
        lengths = tuple(tuple(s.count(holder) for s in self.seats) for holder in range(3))
        self.key = (board.leader, rem, lengths, None if free else tuple(board.tallies))
        self.base = board.tallies[x] if free else 0
        self.every = board.hands[0] | board.hands[1] | board.hands[2]


class Paranoid:
    """Sure tricks of one player X in one deal; the bounds tables live as long as the object.

    Zero-window tests "X ends the deal with at least v tricks". Each answer comes with the ranks
    it depended on (per suit, the top live cards from the lowest that decided a trick, a quick
    trick or a stored bound), and is stored twice at a trick's start: for the exact position, and
    for its class (leader, tricks left, suit lengths, the tallies where they matter), where it
    answers every position whose holders of those ranks are the same (partition search).
    """

    def __init__(self, x: int) -> None:
        self.x = x
        self.exact: dict[tuple, list] = {}  # (class key, seats) -> [lo, hi, lo's ranks, hi's ranks]
        self.classes: dict[tuple, dict] = {}  # class key -> top counts -> top seats -> [lo, hi]
        self.nodes = 0
        self._limit: int | None = None
        self._target: int | None = None

    def sure(self, board: Board, guess: int | None = None, budget: int | None = None,
             floor: int | None = None, ceiling: int | None = None) -> int:
        """The most tricks X ends the deal with against the other two together; raises OutOfBudget
        when that needs more than `budget` nodes (work, not time: the same answer at any load).

        A guess of the value (e.g. the last position's) is probed first and its neighbour next.
        With a floor or a ceiling the answer is the value clamped to them: a caller who knows the
        value is at least the floor, or needs only to know whether it passes it, pays no test
        outside them.
        """
        if board.target != self._target:  # entries that name tallies hold for one target
            self.exact.clear()
            self.classes.clear()
            self._target = board.target
        self._limit = None if budget is None else self.nodes + budget
        board = board.copy()  # running out of budget unwinds past the undo of each card: the caller's board stays whole
        lo = board.tallies[self.x]
        if board.is_over():
            return _clamped(lo, floor, ceiling)
        hi = min(board.target, lo + board.tricks_left())
        if floor is not None and floor > lo:
            lo = min(floor, hi)
        if ceiling is not None and ceiling < hi:
            hi = max(ceiling, lo)
        if guess is not None and lo < guess <= hi:
            if self._ge(board, guess)[0]:
                lo = guess
            else:
                hi = guess - 1
        while lo < hi:
            mid = lo + 1 if lo == guess else (lo + hi + 1) // 2
            if self._ge(board, mid)[0]:
                lo = mid
            else:
                hi = mid - 1
        return _clamped(lo, floor, ceiling)

    def _ge(self, board: Board, v: int) -> tuple[bool, int]:
        """Whether X can end the deal with at least v tricks, and the ranks that answer rests on."""
        x = self.x
        t = board.tallies[x]
        if t >= v:
            return True, 0
        if board.is_over():
            return False, 0
        rem = board.tricks_left()
        if t + rem < v:
            return False, 0
        if self._limit is not None and self.nodes >= self._limit:
            raise OutOfBudget
        self.nodes += 1
        kind = None
        if not board.trick:
            kind = _Class(board, x, v, rem)
            known = self._in_classes(kind, v - kind.base)
            if known is not None:
                return known
            bound = start_bound(board, x, v, rem)
            if bound is not None:
                return bound
            known = self._in_exact(kind, v - kind.base)  # after the bounds, as the core (its slot is rarely cached)
            if known is not None:
                return known
        else:
            bound = trick_bound(board, x, v)
            if bound is not None:
                return bound
        result, rel = self._moves(board, v)
        if kind is not None:
            self._store(kind, v - kind.base, result, rel)
        return result, rel

    def _moves(self, board: Board, v: int) -> tuple[bool, int]:
        """The test answered by trying the mover's runs: one success (for the side to move) is enough."""
        runs = ordered_runs(board, self.x)
        ours = board.turn == self.x
        acc = 0
        below: dict[int, int] = {}  # suit -> the ranks a refuted card's answer rested on, the card under them
        for r in runs:
            c = lowest(r)
            if c // 13 in below and not below[c // 13] >> c & 1:
                continue  # a card under those ranks too: the same position for the answer (docs/solver.md)
            done = board.trick + [c] if len(board.trick) == 2 else None
            board.play(c)
            result, crel = self._ge(board, v)
            board.undo()
            if done is not None:
                crel |= decided(done)
            if result == ours:
                return result, crel
            acc |= crel
            if not crel >> c & 1:
                below.setdefault(c // 13, crel)
        return not ours, close_runs(acc, runs)

    def _in_classes(self, kind: _Class, more: int) -> tuple[bool, int] | None:
        """A bound stored for a class of this position that decides whether X takes `more` more tricks
        (or that many in all), with its ranks; else None."""
        for counts, bounds in self.classes.get(kind.key, {}).items():
            e = bounds.get(tuple(seats[:m] for seats, m in zip(kind.seats, counts)))
            if e is not None:
                if e[0] >= more:
                    return True, counts_rel(counts, kind.every)
                if e[1] < more:
                    return False, counts_rel(counts, kind.every)
        return None

    def _in_exact(self, kind: _Class, more: int) -> tuple[bool, int] | None:
        """A bound stored for exactly this position that decides the test, with its ranks; else None."""
        e = self.exact.get((kind.key, kind.seats))
        if e is not None:
            if e[0] >= more:
                return True, counts_rel(e[2], kind.every)
            if e[1] < more:
                return False, counts_rel(e[3], kind.every)
        return None

    def _store(self, kind: _Class, more: int, result: bool, rel: int) -> None:
        counts = top_counts(rel, kind.every)
        e = self.exact.setdefault((kind.key, kind.seats), [0, 16, None, None])
        if result and more > e[0]:
            e[0], e[2] = more, counts
        elif not result and more - 1 < e[1]:
            e[1], e[3] = more - 1, counts
        bounds = self.classes.setdefault(kind.key, {}).setdefault(counts, {})
        p = bounds.setdefault(tuple(seats[:m] for seats, m in zip(kind.seats, counts)), [0, 16])
        if result:
            p[0] = max(p[0], more)
        else:
            p[1] = min(p[1], more - 1)


def first_guess(board: Board, x: int) -> int:
    """A first guess at X's sure tricks with nothing better to go on: his tricks, his cards among the
    top two live cards of their suit, and one more, since a test above the value is the cheap kind
    (docs/solver.md, "Tests, not values")."""
    live = live_cards(board)
    tops = 0
    for suit in SUIT_MASK:
        cards = live & suit
        for _ in range(2):
            if cards:
                top = 1 << (cards.bit_length() - 1)
                tops += bool(board.hands[x] & top)
                cards &= ~top
    return min(board.tallies[x] + tops + 1, board.target, board.tallies[x] + board.tricks_left())


def _clamped(value: int, floor: int | None, ceiling: int | None) -> int:
    value = value if floor is None else max(value, floor)
    return value if ceiling is None else min(value, ceiling)


def sure(board: Board, x: int, budget: int | None = None) -> int:
    """The most tricks X can be sure of in the deal (tricks he has included); raises OutOfBudget."""
    return Paranoid(x).sure(board, budget=budget)


def principal_line(board: Board, x: int, sure_of) -> list[int]:
    """A line that proves X's sure tricks: best play for X and for the two against him, to the end.

    `sure_of(board)` gives X's sure tricks (either core's). At each card the line keeps one whose
    value is the position's: X cannot do better, and the others hold him to it.
    """
    board = board.copy()
    v = sure_of(board)
    line: list[int] = []
    while not board.is_over():
        for c in ordered_moves(board, x):
            board.play(c)
            if sure_of(board) == v:
                line.append(c)
                break
            board.undo()
        else:  # pragma: no cover - a value always has a child of the same value
            raise AssertionError("no card keeps the value")
    return line


def claim_line(board: Board, x: int, k: int, best_play: bool) -> list[int] | None:
    """A line of play that stops X from taking the next k tricks, or None when the claim holds.

    Under `any-order` (best_play False) every card, X's own included, is the defence's to choose;
    under `best-play` X chooses his cards and the line answers the first card he tries. The line
    is the cards played in order, ending with the last card of the first trick X loses.
    """
    return _ClaimSearch(x, k, best_play).fails(board, 0)


class _ClaimSearch:
    def __init__(self, x: int, k: int, best_play: bool) -> None:
        self.x, self.k, self.best_play = x, k, best_play
        self.holds: set[tuple] = set()

    def fails(self, board: Board, won: int) -> list[int] | None:
        if won >= self.k:
            return None
        key = board.key() + (won,) if not board.trick else None
        if key is not None and key in self.holds:
            return None
        x = self.x
        mover = board.turn
        chooses = self.best_play and mover == x
        moves = ordered_moves(board, x)
        if mover == x and not chooses:
            moves.reverse()  # under any-order X's own cards are tried worst first
        first = None
        for c in moves:
            winner = board.play(c)
            if winner is not None and winner != x:
                line = [c]
            else:
                line = self.fails(board, won + (winner is not None))
                if line is not None:
                    line = [c] + line
            board.undo()
            if chooses:
                if line is None:
                    first = None
                    break
                first = first or line
            elif line is not None:
                return line
        if first is None and key is not None:
            self.holds.add(key)
        return first


def as_tricks(board: Board, line: list[int]) -> list[list[int]]:
    """Split a line played from `board` into its tricks (the first may continue one in progress)."""
    out: list[list[int]] = [list(board.trick)] if board.trick else [[]]
    for c in line:
        if len(out[-1]) == 3:
            out.append([])
        out[-1].append(c)
    return out
