"""The exact solver of Foreman endings: sure tricks (paranoid value), claims, and the lines proving them.

This is the reference: `core.py` has the compiled fast path of each search, tested against it for
the same values. Both play one card per run of equivalent cards (cards of one suit in one hand
with no live card of another hand or of the trick between them; played cards are gaps) and make
zero-window tests on "X ends the deal with at least v tricks", with quick-trick bounds at the
start of a trick and a table of bounds keyed by the position at trick boundaries; the compiled
search also has length winners, tally-free and partition entries (not yet here).
"""

from __future__ import annotations

from .board import Board
from .cards import SUIT_MASK, SUIT_OF

class OutOfBudget(Exception):
    """The search needed more nodes than its budget (internal: callers turn it into 'not solved')."""


def groups(legal: int, live: int) -> list[int]:
    """The runs of equivalent cards in `legal`, as masks, highest run of each suit first."""
    out = []
    for s in range(4):
        own = legal & SUIT_MASK[s]
        if not own:
            continue
        m = live & SUIT_MASK[s]
        run = 0
        while m:
            top = 1 << (m.bit_length() - 1)
            m ^= top
            if own & top:
                run |= top
            elif run:
                out.append(run)
                run = 0
        if run:
            out.append(run)
    return out


def lowest(mask: int) -> int:
    """The lowest card of a mask (a run's representative)."""
    return (mask & -mask).bit_length() - 1


def live_cards(b: Board) -> int:
    """Every card still in play: the three hands and the trick in progress (what a run is cut by)."""
    live = b.hands[0] | b.hands[1] | b.hands[2]
    for c in b.trick:
        live |= 1 << c
    return live


def _winning(b: Board) -> tuple[int, int]:
    """The card now winning the trick in progress and its seat."""
    led = SUIT_OF[b.trick[0]]
    best, w = b.trick[0], b.leader
    for j, c in enumerate(b.trick[1:], 1):
        if SUIT_OF[c] == led and c > best:
            best, w = c, (b.leader + j) % 3
    return best, w


def ordered_moves(b: Board, x: int) -> list[int]:
    """One card per run of the mover's legal cards, the likeliest best first (for X's side or not)."""
    runs = groups(b.legal_mask(), live_cards(b))
    if not b.trick:
        # Leading: a run holding the suit's top live card first, then low cards.
        live = live_cards(b)
        tops, rest = [], []
        for r in runs:
            hi = r.bit_length() - 1
            (tops if not live & SUIT_MASK[SUIT_OF[hi]] & ~((2 << hi) - 1) else rest).append(r)
        return [lowest(r) for r in tops] + [lowest(r) for r in sorted(rest)]
    best, w = _winning(b)
    mover = b.turn
    ally_winning = (w == x) == (mover == x)
    led = SUIT_OF[b.trick[0]]
    beats = [r for r in runs if SUIT_OF[lowest(r)] == led and r.bit_length() - 1 > best]
    others = [r for r in runs if r not in beats]
    if ally_winning:
        return [lowest(r) for r in sorted(others)] + [lowest(r) for r in sorted(beats)]
    return [lowest(r) for r in sorted(beats)] + [lowest(r) for r in sorted(others)]


def _quick(b: Board, x: int) -> tuple[int, int]:
    """Tricks the leader can cash in a row with cards no one else can beat: (for X, for X's opponents)."""
    h = b.hands
    ld = b.leader
    others = h[(ld + 1) % 3] | h[(ld + 2) % 3]
    n = 0
    for s in range(4):
        mine = h[ld] & SUIT_MASK[s]
        if not mine:
            continue
        theirs = others & SUIT_MASK[s]
        if theirs:
            mine &= ~((2 << (theirs.bit_length() - 1)) - 1)
        n += mine.bit_count()
    return (n, 0) if ld == x else (0, n)


class Paranoid:
    """Sure tricks of one player X in one deal; the bounds table lives as long as the object."""

    def __init__(self, x: int) -> None:
        self.x = x
        self.table: dict[tuple, list[int]] = {}
        self.nodes = 0
        self._limit: int | None = None

    def sure(self, b: Board, guess: int | None = None, budget: int | None = None) -> int:
        """The most tricks X ends the deal with against the other two together; raises OutOfBudget
        when that needs more than `budget` nodes (work, not time: the same answer at any load).

        A guess of the value (e.g. the last position's) is probed first and its neighbour next.
        """
        x = self.x
        self._limit = None if budget is None else self.nodes + budget
        b = b.copy()  # running out of budget unwinds past the undo of each card: the caller's board stays whole
        lo = b.tallies[x]
        if b.is_over():
            return lo
        hi = min(b.target, lo + b.tricks_left())
        if guess is not None and lo < guess <= hi:
            if self._ge(b, guess):
                lo = guess
            else:
                hi = guess - 1
        while lo < hi:
            mid = lo + 1 if lo == guess else (lo + hi + 1) // 2
            if self._ge(b, mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _ge(self, b: Board, v: int) -> bool:
        """True when X can end the deal with at least v tricks (v at most the target)."""
        x = self.x
        t = b.tallies[x]
        if t >= v:
            return True
        if b.is_over():
            return False
        rem = b.tricks_left()
        if t + rem < v:
            return False
        if self._limit is not None and self.nodes >= self._limit:
            raise OutOfBudget
        self.nodes += 1
        key = None
        if not b.trick:
            key = b.key()
            entry = self.table.get(key)
            if entry is not None:
                if entry[0] >= v:
                    return True
                if entry[1] < v:
                    return False
            mine, theirs = _quick(b, x)
            if t + min(mine, rem) >= v:
                return True
            if t + rem - min(theirs, rem) < v:
                return False
        ours = b.turn == x
        result = not ours
        for c in ordered_moves(b, x):
            b.play(c)
            r = self._ge(b, v)
            b.undo()
            if r == ours:
                result = r
                break
        if key is not None:
            entry = self.table.setdefault(key, [0, 16])
            if result:
                entry[0] = max(entry[0], v)
            else:
                entry[1] = min(entry[1], v - 1)
        return result


def sure(b: Board, x: int, budget: int | None = None) -> int:
    """The most tricks X can be sure of in the deal (tricks he has included); raises OutOfBudget."""
    return Paranoid(x).sure(b, budget=budget)


def principal_line(b: Board, x: int, sure_of) -> list[int]:
    """A line that proves X's sure tricks: best play for X and for the two against him, to the end.

    `sure_of(board)` gives X's sure tricks (either core's). At each card the line keeps one whose
    value is the position's: X cannot do better, and the others hold him to it.
    """
    b = b.copy()
    v = sure_of(b)
    line: list[int] = []
    while not b.is_over():
        for c in ordered_moves(b, x):
            b.play(c)
            if sure_of(b) == v:
                line.append(c)
                break
            b.undo()
        else:  # pragma: no cover - a value always has a child of the same value
            raise AssertionError("no card keeps the value")
    return line


def claim_line(b: Board, x: int, k: int, best_play: bool) -> list[int] | None:
    """A line of play that stops X from taking the next k tricks, or None when the claim holds.

    Under `any-order` (best_play False) every card, X's own included, is the defence's to choose;
    under `best-play` X chooses his cards and the line answers the first card he tries. The line
    is the cards played in order, ending with the last card of the first trick X loses.
    """
    return _ClaimSearch(x, k, best_play).fails(b, 0)


class _ClaimSearch:
    def __init__(self, x: int, k: int, best_play: bool) -> None:
        self.x, self.k, self.best_play = x, k, best_play
        self.holds: set[tuple] = set()

    def fails(self, b: Board, won: int) -> list[int] | None:
        if won >= self.k:
            return None
        key = b.key() + (won,) if not b.trick else None
        if key is not None and key in self.holds:
            return None
        x = self.x
        mover = b.turn
        chooses = self.best_play and mover == x
        moves = ordered_moves(b, x)
        if mover == x and not chooses:
            moves.reverse()  # under any-order X's own cards are tried worst first
        first = None
        for c in moves:
            w = b.play(c)
            if w is not None and w != x:
                line = [c]
            else:
                line = self.fails(b, won + (w is not None))
                if line is not None:
                    line = [c] + line
            b.undo()
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


def as_tricks(b: Board, line: list[int]) -> list[list[int]]:
    """Split a line played from board `b` into its tricks (the first may continue one in progress)."""
    out: list[list[int]] = [list(b.trick)] if b.trick else [[]]
    for c in line:
        if len(out[-1]) == 3:
            out.append([])
        out[-1].append(c)
    return out
