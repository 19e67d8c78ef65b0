"""The deal-fairness screen (docs/fairness.md): dealt hands against chance, per player, as dealer and not."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from . import stats_exact as sx
from .cards import CARD_OF, RANK_OF, SUIT_OF
from .words import plural, signed

HAND, KITTY = 16, 4
ACE, HONOURS = {12}, {9, 10, 11, 12}  # ranks: A; and J Q K A
CORRECTIONS = {"holm": sx.holm, "bh": sx.benjamini_hochberg}
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}


@dataclass(frozen=True, slots=True)
class Dealt:
    """One deal as dealt: the seats' hands and the kitty, before any pass (None: a record of the
    play that does not show them)."""

    game: str
    deal: int
    players: tuple[str, str, str]
    dealer: int
    hands: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None
    kitty: tuple[int, ...] | None

    def is_one_deck(self) -> bool:
        """True when the hands and kitty are 16, 16, 16 and 4 of the 52 distinct cards."""
        cards = [c for h in self.hands for c in h] + list(self.kitty)
        return [len(h) for h in self.hands] == [HAND] * 3 and len(self.kitty) == KITTY and len(set(cards)) == 52


def _count(cards, ranks) -> int:
    return sum(1 for c in cards if RANK_OF[c] in ranks)


def _longest(cards) -> int:
    n = [0, 0, 0, 0]
    for c in cards:
        n[SUIT_OF[c]] += 1
    return max(n)


# What is measured on a hand (or the kitty), its name in words, and its exact null distribution.
MEASURES = {
    "aces": ("aces", lambda cs: _count(cs, ACE), lambda n: sx.hypergeom(52, 4, n)),
    "honours": ("honours (A K Q J)", lambda cs: _count(cs, HONOURS), lambda n: sx.hypergeom(52, 16, n)),
    "longest suit": ("cards in the longest suit", _longest, lambda n: list(sx.longest_suit(n))),
}


@dataclass(slots=True)
class Test:
    """One test of the family: a player, as dealer or not, one measure, against chance."""

    player: str
    as_: str  # "dealer" or "other"
    test: str
    deals: int
    observed: float  # mean per deal
    expected: float
    sd: float  # of one deal under chance
    p: float
    method: str
    values: list[int] = field(default_factory=list, repr=False)  # per deal, for the pictures
    null: list[float] = field(default_factory=list, repr=False)
    p_adjusted: float = 1.0
    flagged: bool = False

    @property
    def effect(self) -> float:
        """The edge per deal in units of the chance SD (Cohen's d)."""
        return (self.observed - self.expected) / self.sd if self.sd else 0.0

    def to_dict(self, alpha: float) -> dict:
        """The JSON of one test (docs/fairness.md's keys, and a few more)."""
        return {"player": self.player, "as": self.as_, "test": self.test, "deals": self.deals,
                "observed": round(self.observed, 4), "expected": round(self.expected, 4), "sd": round(self.sd, 4),
                "effect": round(self.effect, 4), "p": self.p, "p_adjusted": self.p_adjusted, "flagged": self.flagged,
                "method": self.method,
                "deals_needed": sx.deals_needed(self.observed - self.expected, self.sd, alpha)}


@dataclass(slots=True)
class Unscreened:
    """The records whose deals the screen cannot take, counted as the deals are read from them."""

    invalid: int = 0  # records that cannot be replayed: their deals are unknown
    differing: int = 0  # games read again as another record: the first record's deals are the ones screened


@dataclass(slots=True)
class Screen:
    """The whole screen: the family of tests, corrected, and the deals it looked at."""

    deals: int
    excluded: int  # deals that are not one deck of 52
    alpha: float
    correction: str
    tests: list[Test]
    play_only: int = 0  # deals recorded without their hands (foreman/1.2), left out
    unscreened: Unscreened = field(default_factory=Unscreened)

    @property
    def left_out(self) -> str:
        """The deals and records left out of the screen and why, in words."""
        why = [f"{n} left out: {reason}" for n, reason in ((self.excluded, "not one deck of 52"),
                                                            (self.play_only, "recorded without their hands")) if n]
        unscreened = self.unscreened
        if unscreened.invalid:
            why.append(f"{plural(unscreened.invalid, 'record')} left out: cannot be replayed, see foreman validate")
        if unscreened.differing:
            why.append(f"{plural(unscreened.differing, 'game')} read again as another record: "
                       "the first record screened")
        return "; ".join(why) or "none left out"

    @property
    def empty(self) -> bool:
        """True when the input held nothing the screen could count, not even a record it left out."""
        return not (self.deals or self.excluded or self.play_only or self.unscreened.invalid
                    or self.unscreened.differing)

    @property
    def flagged(self) -> list[Test]:
        """The tests that fail at alpha after the correction."""
        return [t for t in self.tests if t.flagged]

    def to_dict(self) -> dict:
        """`foreman fairness --json`."""
        return {"deals": self.deals, "excluded": self.excluded, "play_only": self.play_only,
                "invalid_records": self.unscreened.invalid, "differing_repeats": self.unscreened.differing,
                "alpha": self.alpha, "correction": self.correction,
                "correction_name": CORRECTION_NAMES[self.correction],
                "tests": [t.to_dict(self.alpha) for t in self.tests]}


def _test(player: str, as_: str, name: str, values: list[int], size: int) -> Test:
    _, measure, null_of = MEASURES[name]
    null = null_of(size)
    mean, sd = sx.moments(null)
    p, method = sx.upper_tail(null, len(values), sum(values))
    observed = sum(values) / len(values) if values else 0.0
    label = name if size == HAND else f"kitty {name}"
    return Test(player, as_, label, len(values), observed, mean, sd, p, method, values, null)


COMPARISON = "honours: own deals against the other dealers'"


def _own_against_others(player: str, own: list[int], other: list[int]) -> Test | None:
    """The dealer's honours in his own deals against the dealer's in the others' deals.

    A two-sample z with the exact chance SD. The dealer is compared with the dealer (not with
    his own hands when others deal), so one cheat at the table does not make the others look lucky.
    """
    if not own or not other:
        return None
    _, sd = sx.moments(sx.hypergeom(52, 16, HAND))
    mine, theirs = sum(own) / len(own), sum(other) / len(other)
    se = sd * math.sqrt(1 / len(own) + 1 / len(other))
    return Test(player, "dealer", COMPARISON, len(own), mine, theirs, sd,
                sx.normal_sf((mine - theirs) / se), "two-sample z")


def screen(deals: Iterable[Dealt], alpha: float = 0.01, correction: str = "holm",
           unscreened: Unscreened | None = None) -> Screen:
    """Test every player's dealt hands against chance, as dealer and not, and correct the family;
    `unscreened` is what the reading of the deals counts of the records it could not take."""
    by: dict[tuple[str, str, str], list[int]] = {}
    kitty: dict[str, list[int]] = {}
    dealer_honours: list[tuple[str, int]] = []  # (dealer, honours in his hand) per deal
    n = excluded = play_only = 0
    for d in deals:
        if d.hands is None or d.kitty is None:
            play_only += 1
            continue
        if not d.is_one_deck():
            excluded += 1
            continue
        n += 1
        for s, p in enumerate(d.players):
            as_ = "dealer" if s == d.dealer else "other"
            for name, (_, measure, _) in MEASURES.items():
                by.setdefault((p, as_, name), []).append(measure(d.hands[s]))
        kitty.setdefault(d.players[d.dealer], []).append(_count(d.kitty, HONOURS))
        dealer_honours.append((d.players[d.dealer], _count(d.hands[d.dealer], HONOURS)))
    tests = [_test(p, as_, name, v, HAND) for (p, as_, name), v in sorted(by.items())]
    tests += [_test(p, "dealer", "honours", v, KITTY) for p, v in sorted(kitty.items())]
    for p in sorted({p for p, _, _ in by}):
        t = _own_against_others(p, [h for q, h in dealer_honours if q == p], [h for q, h in dealer_honours if q != p])
        if t is not None:
            tests.append(t)
    tests.sort(key=lambda t: (t.player, t.as_, t.test))
    for t, q in zip(tests, CORRECTIONS[correction]([t.p for t in tests])):
        t.p_adjusted = q
        t.flagged = q < alpha
    return Screen(n, excluded, alpha, correction, tests, play_only, unscreened or Unscreened())


def from_results(results, unscreened: Unscreened | None = None) -> Iterator[Dealt]:
    """The deals of replayed games, as dealt (invalid records have none; a repeat is not counted
    again), counting in `unscreened` the records that give none."""
    unscreened = unscreened if unscreened is not None else Unscreened()
    for r in results:
        if r.repeat:
            unscreened.differing += r.in_doubt
            continue
        if r.status == "invalid" or r.data is None:
            unscreened.invalid += r.status == "invalid"
            continue
        game = r.data
        for i, d in enumerate(game.deals, 1):
            hands = None if d.hands is None else tuple(tuple(CARD_OF[t] for t in d.hands[p]) for p in game.players)
            kitty = None if d.kitty is None else tuple(CARD_OF[t] for t in d.kitty)
            yield Dealt(game.id, i, game.players, game.seat[d.dealer], hands, kitty)


def verdicts(screen: Screen) -> list[str]:
    """Plain sentences: each flagged test, and a line for each player with none."""
    out = []
    words = {"aces": "aces", "honours": "honours (A K Q J)", "longest suit": "cards in the longest suit",
             "kitty honours": "honours in the kitty"}
    for t in screen.flagged:
        chance = f"p = {t.p_adjusted:.2g} after correction"
        if t.test == COMPARISON:
            out.append(f"{t.player}: dealing, {t.player} held {t.observed:.2f} honours (A K Q J) on average over "
                       f"{plural(t.deals, 'deal')}; the other dealers held {t.expected:.2f} in theirs "
                       f"(edge {signed(t.effect)} SD), {chance}")
            continue
        when = "dealing" if t.as_ == "dealer" else "in the others' deals"  # the player named held the cards, not "them"
        out.append(f"{t.player}: {when}, {t.player} held {t.observed:.2f} {words.get(t.test, t.test)} on average "
                   f"against {t.expected:.2f} by chance over {plural(t.deals, 'deal')} "
                   f"(edge {signed(t.effect)} SD), {chance}")
    for player in sorted({t.player for t in screen.tests} - {t.player for t in screen.flagged}):
        mine = [t for t in screen.tests if t.player == player]
        best = min(mine, key=lambda t: t.p_adjusted)
        out.append(f"{player}: nothing beyond chance in {plural(len(mine), 'test')} "
                   f"(smallest adjusted p = {best.p_adjusted:.2g}, {best.test} as {best.as_})")
    return out
