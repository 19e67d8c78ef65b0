"""The fast lane: a plain record from its text to its result in two compiled calls, or None for the full path.

A plain record has every deal in the sizes of the rules with only the
players' names in it and no claim. `_core.lane_scan` reads its deals straight from the text into
blocks of card codes and gives back its other members (the head) as a JSON object of their own,
which `records.decode_head` checks as `records.decode` checks a whole record. `_core.lane_replay`
tallies the blocks. The lane answers only for a game won with nothing amiss in its play; every
other record, and every record when the core is not built, takes the full path, which is the
reference (tests/test_lane.py holds the two to the same lines). `scan` and `replay` below are the
compiled functions' Python twins.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from . import core, engine, records
from .cards import CANONICAL, CARD_OF
from .results import GameResult

LANE_DEPTH = 64  # nesting a passed-over value may have; deeper goes to the full path
BLOCK = 134  # a deal: dealer, 3 hands of 16, kitty 4, discards 4, passes 3 x 4, tricks, 16 x (leader + 3)
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
    g = records.decode_head(scanned[0], overrides)
    if g is None:
        return None
    r = g.rules
    tallies = _REPLAY(scanned[1], r.return_rule == "highest", r.deal_rotation == "left", r.target, r.kitty == "pickup")
    if tallies is None:
        return None
    if keep:
        g.blocks = scanned[1]
    return engine.tallied(g, tallies, source, fingerprint(text), g.players[tallies[0][0]], text if keep else None)


# --- the twins ---


class _NotPlain(Exception):
    """The text is not a plain record (scan answers None)."""


_WS = " \t\n\r"
_HEX = "0123456789abcdefABCDEF"
_NUMBER_START = "-0123456789"
_PASS_KEYS = ("from", "to", "card", "returned")
_TRICK_KEYS = ("leader", "cards")
_DEAL_KEYS = ("dealer", "hands", "kitty", "passes", "discards", "tricks")


class _Scanner:
    """The twin of lane_scan's reader, step for step."""

    def __init__(self, text: str, card_of: dict[str, int]) -> None:
        self.t, self.i, self.depth, self.card_of = text, 0, 0, card_of
        self.names: list[str] = []

    def ws(self) -> None:
        t, i = self.t, self.i
        while i < len(t) and t[i] in _WS:
            i += 1
        self.i = i

    def eat(self, ch: str) -> bool:
        self.ws()
        if self.t.startswith(ch, self.i):
            self.i += 1
            return True
        return False

    def need(self, ok: bool) -> None:
        if not ok:
            raise _NotPlain

    def string(self) -> str:
        self.ws()
        t = self.t
        self.need(t.startswith('"', self.i))
        i = start = self.i + 1
        while i < len(t) and t[i] != '"':
            self.need(t[i] >= " ")
            if t[i] != "\\":
                i += 1
            elif t.startswith("u", i + 1):
                self.need(i + 6 <= len(t) and all(c in _HEX for c in t[i + 2:i + 6]))
                i += 6
            else:
                self.need(i + 1 < len(t) and t[i + 1] in '"\\/bfnrt')
                i += 2
        self.need(i < len(t))
        self.i = i + 1
        return t[start:i]

    def digits(self) -> bool:
        start = self.i
        while self.i < len(self.t) and "0" <= self.t[self.i] <= "9":  # not str.isdigit: '²' is a digit to it
            self.i += 1
        return self.i > start

    def number(self) -> None:
        t = self.t
        if t[self.i] == "-":
            self.i += 1
        if t.startswith("0", self.i):
            self.i += 1
        else:
            self.need(self.i < len(t) and "1" <= t[self.i] <= "9" and self.digits())
        if t.startswith(".", self.i):
            self.i += 1
            self.need(self.digits())
        if self.i < len(t) and t[self.i] in "eE":
            self.i += 1
            if self.i < len(t) and t[self.i] in "+-":
                self.i += 1
            self.need(self.digits())

    def skip(self) -> None:
        self.ws()
        self.need(self.i < len(self.t))
        c = self.t[self.i]
        if c == '"':
            self.string()
        elif c in "{[":
            close = "}" if c == "{" else "]"
            self.depth += 1
            self.need(self.depth <= LANE_DEPTH)
            self.i += 1
            if not self.eat(close):
                while True:
                    if c == "{":
                        self.member()
                    self.skip()
                    if not self.eat(","):
                        break
                self.need(self.eat(close))
            self.depth -= 1
        elif c in _NUMBER_START:
            self.number()
        else:
            word = next((w for w in ("true", "false", "null") if self.t.startswith(w, self.i)), None)
            self.need(word is not None)
            self.i += len(word)

    def member(self) -> str:
        key = self.string()
        self.need(self.eat(":"))
        return key

    def card(self) -> int:
        c = self.card_of.get(self.string())
        self.need(c is not None)
        return c

    def cards(self, want: int) -> list[int]:
        self.need(self.eat("["))
        out: list[int] = []
        if self.eat("]"):
            self.need(want == 0)
            return out
        while True:
            c = self.card()
            self.need(len(out) < want)
            out.append(c)
            if not self.eat(","):
                break
        self.need(self.eat("]") and len(out) == want)
        return out

    def seat(self) -> int:
        name = self.string()
        self.need(name in self.names)
        return self.names.index(name)

    def players(self) -> None:
        self.need(self.eat("["))
        for i in range(3):
            self.need(not i or self.eat(","))
            self.names.append(self.string())
        self.need(self.eat("]"))

    def hands(self) -> list[list[int]]:
        out: list[list[int] | None] = [None, None, None]
        self.need(self.eat("{"))
        for i in range(3):
            self.need(not i or self.eat(","))
            s = self.seat()
            self.need(out[s] is None and self.eat(":"))
            out[s] = self.cards(16)
        self.need(self.eat("}"))
        return out  # type: ignore[return-value]

    def obj(self, keys: tuple[str, ...], one: Callable[[int], Any]) -> dict[int, Any]:
        self.need(self.eat("{"))
        got: dict[int, Any] = {}
        while True:
            key = self.member()
            self.need(key in keys and keys.index(key) not in got)
            got[keys.index(key)] = one(keys.index(key))
            if not self.eat(","):
                break
        self.need(self.eat("}") and len(got) == len(keys))
        return got

    def objects(self, want: int, most: int, keys: tuple[str, ...], one: Callable[[int], Any]) -> list[dict[int, Any]]:
        self.need(self.eat("["))
        out: list[dict[int, Any]] = []
        if not self.eat("]"):
            while True:
                self.need(len(out) < (most or want))
                out.append(self.obj(keys, one))
                if not self.eat(","):
                    break
            self.need(self.eat("]"))
        self.need(bool(most) or len(out) == want)
        return out

    def deal(self) -> bytes:
        def one(k: int) -> Any:
            return [self.seat, self.hands, lambda: self.cards(4), lambda: self.objects(3, 0, _PASS_KEYS, part),
                    lambda: self.cards(4), lambda: self.objects(0, 16, _TRICK_KEYS, trick)][k]()

        def part(k: int) -> int:
            return self.seat() if k < 2 else self.card()

        def trick(k: int) -> Any:
            return self.seat() if k == 0 else self.cards(3)

        d = self.obj(_DEAL_KEYS, one)
        block = bytearray([d[0]])
        for hand in d[1]:
            block += bytes(hand)
        block += bytes(d[2]) + bytes(d[4])
        for p in d[3]:
            block += bytes(p[k] for k in range(4))
        block.append(len(d[5]))
        for t in d[5]:
            block += bytes([t[0], *t[1]])
        return bytes(block.ljust(BLOCK, b"\0"))

    def record(self) -> tuple[bytes, bytes]:
        self.need(self.eat("{"))
        head: list[str] = []
        blocks: list[bytes] = []
        seen: set[str] = set()
        while True:
            self.ws()
            start = self.i
            key = self.member()
            if key == "deals":
                self.need("deals" not in seen and "players" in seen)
                self.need(self.eat("["))
                while True:
                    blocks.append(self.deal())
                    if not self.eat(","):
                        break
                self.need(self.eat("]"))
            else:
                if key == "players":
                    self.need("players" not in seen)
                    self.players()
                else:
                    self.skip()
                head.append(self.t[start:self.i])
            seen.add(key)
            if not self.eat(","):
                break
        self.need(self.eat("}"))
        self.ws()
        self.need(self.i == len(self.t) and "deals" in seen)
        return ("{" + ",".join(head) + "}").encode(), b"".join(blocks)


def scan(text: str, card_of: dict[str, int]) -> tuple[bytes, bytes] | None:
    """(head, blocks) for a plain record's text, else None: the twin of `_core.lane_scan`."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return None  # a lone surrogate: the compiled scan cannot read it as UTF-8 either
    try:
        return _Scanner(text, card_of).record()
    except _NotPlain:
        return None


def block_deal(b: bytes) -> SimpleNamespace:
    """One deal's block as the decoder's structs would hold it, with seats where names were."""
    def tokens(codes: bytes) -> list[str]:
        return [CANONICAL[c] for c in codes]

    return SimpleNamespace(
        dealer=b[0], hands={s: tokens(b[1 + 16 * s:17 + 16 * s]) for s in range(3)}, kitty=tokens(b[49:53]),
        discards=tokens(b[53:57]),
        passes=[SimpleNamespace(from_=b[57 + 4 * k], to=b[58 + 4 * k], card=CANONICAL[b[59 + 4 * k]],
                                returned=CANONICAL[b[60 + 4 * k]]) for k in range(3)],
        tricks=[SimpleNamespace(leader=b[70 + 4 * j], cards=tokens(b[71 + 4 * j:74 + 4 * j]))
                for j in range(min(b[69], 16))])


SEATS = {0: 0, 1: 1, 2: 2}  # the blocks hold seats where the record has names


def replay(blocks: bytes, highest: bool, rotation_left: bool, target: int, pickup: bool = False) -> tuple | None:
    """Each deal's (dealer, tally) for a game won with nothing amiss, else None: the twin of
    `_core.lane_replay`, on engine.clean_deal (the replay's own one-pass check)."""
    if not blocks or len(blocks) % BLOCK:
        raise ValueError("the deals' blocks")
    n = len(blocks) // BLOCK
    out = []
    prev = None
    over = False
    for i in range(n):
        d = block_deal(blocks[i * BLOCK:(i + 1) * BLOCK])
        D = d.dealer
        tally = engine.clean_deal((d.hands[0], d.hands[1], d.hands[2]), d.kitty, d.passes, d.discards, d.tricks,
                                  SEATS, D, highest, target, pickup=pickup)
        if (over or (rotation_left and prev is not None and D != (prev + 1) % 3) or tally is None
                or (not tally[4] and i + 1 < n and len(d.tricks) < 16)):
            return None
        prev, over = D, tally[4]
        out.append((D, tally))
    return tuple(out) if over else None
