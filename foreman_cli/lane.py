"""The fast lane: a plain record from its text to its result in two compiled calls, or None for the full path.

A plain record has every deal in the sizes of the rules (or, under foreman/1.2, its dealer and
tricks alone) with only the players' names in it and no claim. `_core.lane_scan` reads its deals straight from the text into
blocks of card codes and gives back its other members (the head) as a JSON object of their own,
which `records.decode_head` checks as `records.decode` checks a whole record. `_core.lane_replay`
tallies the blocks. The lane answers only for a game won with nothing amiss in its play; every
other record, and every record when the core is not built, takes the full path, which is the
reference (tests/test_lane.py holds the two to the same lines).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import core, engine, records
from .cards import CARD_OF
from .results import GameResult

BLOCK = 135  # a deal: dealer, 3 hands of 16, kitty 4, discards 4, passes 3 x 4, tricks, 16 x (leader + 3), alone
_SCAN = core.lane_scan
_REPLAY = core.lane_replay


def result(text: str, source: str, overrides: dict[str, Any] | None,
           fingerprint: Callable[[str], bytes], keep: bool = False) -> GameResult | None:
    """The result of a plain record, won with nothing amiss; None: take the full path. With `keep`
    it keeps the record's text and the game, its deals as blocks (what the archive stores)."""
    if _SCAN is None:
        return None
    scanned = _SCAN(text, CARD_OF)
    if scanned is None:
        return None
    head, blocks, alone = scanned
    if alone and keep:  # the archive stores a record of the play's deals from the full path
        return None
    game = records.decode_head(head, overrides, alone)
    if game is None:
        return None
    rules = game.rules
    tallies = _REPLAY(blocks, rules.return_rule == "highest", rules.deal_rotation == "left", rules.target,
                      rules.kitty == "pickup")
    if tallies is None:
        return None
    if keep:
        game.blocks = blocks
    return engine.tallied(game, tallies, source, fingerprint(text), game.players[tallies[0][0]], text if keep else None)
