"""Which core runs the searches: the compiled one when it is built and allowed, else solver.py."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import Board

try:
    if os.environ.get("FOREMAN_PURE") == "1":
        raise ImportError("FOREMAN_PURE=1")
    from . import _core
except ImportError:
    _core = None

NAME = "C" if _core is not None else "Python"
# The replay's fast path for a plain deal; the pure path replays every deal in full.
clean_deal = _core.clean_deal if _core is not None else None
# A deal's cards as codes for the archive (archive/staging.py's deal_codes is the reference).
deal_codes = _core.deal_codes if _core is not None else None
# The same from the compiled lane's blocks (there are blocks only where the lane read a record).
lane_codes = _core.lane_codes if _core is not None else None
# The fast lane's scan and tally of a plain record (with no compiled core there is no lane: the
# full path is the reference).
lane_scan = _core.lane_scan if _core is not None else None
lane_replay = _core.lane_replay if _core is not None else None
# A game's lines of notation read into its record's JSON text (notation.read_games is the reference).
fmn_game = _core.fmn_game if _core is not None else None
# Newlines in a stretch of a memory map without copying it (chunks.count_lines is the reference).
count_lines = _core.count_lines if _core is not None else None


def table_bits(board: Board) -> int:
    """A bounds table sized to the ending: a larger one costs more to map and misses the cache
    more often than its hits save (docs/solver.md, "The tables")."""
    left = board.tricks_left()
    return max(12, min(22, 2 * left - 8))


class SureTricks:
    """Sure tricks of seat x in one deal, on the compiled core when there is one; None: out of time."""

    def __init__(self, x: int, board: Board | None = None, pure: bool = False) -> None:
        self.x = x
        from . import solver  # the Python reference, loaded with the first search: a validate run makes none
        self._c = None if pure or _core is None else _core.Paranoid(x, table_bits(board) if board else 18)
        self._py = solver.Paranoid(x) if self._c is None else None

    def sure(self, board: Board, budget: int | None = None, guess: int | None = None,
             floor: int | None = None, ceiling: int | None = None) -> int | None:
        """X's sure tricks at `board` clamped to [floor, ceiling] (a caller's bounds save the tests
        outside them), or None when the search needed more than `budget` nodes."""
        from . import solver
        if guess is None:
            guess = solver.first_guess(board, self.x)
        if self._c is not None:
            hands, t = board.hands, board.tallies
            return self._c.sure(hands[0], hands[1], hands[2], board.leader, board.trick, t[0], t[1], t[2],
                                board.played, board.target, -1 if budget is None else budget, guess,
                                -1 if floor is None else floor, -1 if ceiling is None else ceiling)
        try:
            return self._py.sure(board, guess, budget, floor, ceiling)
        except solver.OutOfBudget:
            return None

    def line(self, board: Board) -> list[int]:
        """A line of best play from `board` to the end of the deal that proves X's sure tricks."""
        from . import solver
        return solver.principal_line(board, self.x, self.sure)

    @property
    def nodes(self) -> int:
        """Nodes searched so far."""
        return self._c.nodes if self._c is not None else self._py.nodes


def claim_line(board: Board, x: int, k: int, best_play: bool, pure: bool = False) -> list[int] | None:
    """A line that stops x from taking the next k tricks, or None when the claim holds."""
    if pure or _core is None:
        from . import solver
        return solver.claim_line(board, x, k, best_play)
    hands, t = board.hands, board.tallies
    return _core.claim_line(hands[0], hands[1], hands[2], board.leader, board.trick, t[0], t[1], t[2], board.played,
                            board.target, x, k, best_play)
