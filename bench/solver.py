"""Solver benchmark (make bench): seeded random endings, timed on the C core, and the twins compared.

Whole deals: `analyze` of generated fair deals (every card costed, one core), timed deal by deal:
first deals of games, then every deal of a few games of a season (later deals come after passes).
Positions (100 of each of 8, 10, 12 and 14 tricks left, 500 of 16, so that its p99 has five above it): 48 of the 52
cards dealt at random into three hands of `tricks` cards, random
tallies that sum to the tricks played with nobody at the target of 12, a random leader and a
random player X; each timing is one `sure(X)` from a fresh bounds table. The agreement check
compares the C core with the Python reference on the value of every player and the best cards
of the player to move. Never part of `make test`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from foreman_cli import core  # noqa: E402
from foreman_cli.analysis import _analyse_play, analyze_game  # noqa: E402
from foreman_cli.board import Board  # noqa: E402


def position(rng: random.Random, tricks: int, in_trick: int = 0) -> Board:
    """A random ending with `tricks` cards a hand (and maybe a trick begun)."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[s * tricks:(s + 1) * tricks]) for s in range(3)]
    played = 16 - tricks
    while True:
        tallies = [0, 0, 0]
        for _ in range(played):
            tallies[rng.randrange(3)] += 1
        if max(tallies) < 12:
            break
    b = Board(hands, rng.randrange(3), tallies, played, 12)
    for _ in range(in_trick):
        b.play(rng.choice(b.legal_moves()))
    return b


def timing(tricks: int, count: int, seed: int, pure: bool = False) -> dict:
    rng = random.Random(seed * 1000 + tricks)
    times, nodes = [], []
    for _ in range(count):
        b = position(rng, tricks)
        x = rng.randrange(3)
        s = core.SureTricks(x, b, pure=pure)
        t = time.perf_counter()
        s.sure(b)
        times.append(time.perf_counter() - t)
        nodes.append(s.nodes)
    nodes.sort()
    return {"tricks": tricks, "n": count, "median_ms": statistics.median(times) * 1e3, "worst_ms": max(times) * 1e3,
            "nodes_per_s": sum(nodes) / sum(times), "nodes": nodes}


def _replayed(games: int, seed: int, **options):
    """Each generated fair game (`generate`'s options), replayed."""
    from foreman_cli import engine
    from foreman_cli.generate import generate
    from foreman_cli.records import decode
    for rec, _ in generate(games, seed, stacked=0.0, **options):
        yield engine.replay(decode(json.dumps(rec)))


def whole_deals(count: int, seed: int) -> list[float]:
    """Seconds to analyse each of `count` generated fair deals from the first lead, every card costed."""
    times = []
    for res in _replayed(count, seed, max_deals=1):
        t = time.perf_counter()
        d = analyze_game(res, deal=1)
        times.append(time.perf_counter() - t)
        if not d.deals[0].exact:
            print(f"  {res.id}: not exact within the default budget", file=sys.stderr)
    return sorted(times)


def season_deals(games: int, seed: int) -> list[float]:
    """Seconds to analyse each deal of `games` generated games of a season (six regulars, one of
    them weak, four deals a game, the later ones after their passes), every card costed."""
    from foreman_cli.analysis import analyze_deal
    times = []
    for res in _replayed(games, seed, max_deals=4, series_size=4, weak="fay",
                         players=["ann", "ben", "cat", "dan", "eve", "fay"]):
        for d in res.deals:
            t = time.perf_counter()
            analyze_deal(res.data, d.number, d)
            times.append(time.perf_counter() - t)
    return sorted(times)


def quantile(sorted_values: list[int], q: float) -> int:
    """The value at quantile q of a sorted list (nearest rank: the smallest value with a share q of
    the list at or below it; the p99 of 100 values is the 99th, of 500 the 495th)."""
    rank = math.ceil(q * len(sorted_values) - 1e-9)  # 0.9 * 100 is 90.00000000000001 in floating point
    return sorted_values[max(rank, 1) - 1]


def agree(count: int, seed: int) -> tuple[int, int]:
    """Endings of 2-10 tricks on which the C core and the reference differ (value or best cards)."""
    rng = random.Random(seed)
    bad = 0
    for i in range(count):
        b = position(rng, rng.randint(2, 10), rng.randint(0, 2))
        card = rng.choice(b.legal_moves())
        c = _analyse_play(b, [core.SureTricks(x, b) for x in range(3)], 1, card, None)
        p = _analyse_play(b, [core.SureTricks(x, b, pure=True) for x in range(3)], 1, card, None)
        if c != p:
            bad += 1
            print(f"  differ at ending {i}: C {c} / Python {p}", file=sys.stderr)
    return count, bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=100, help="random positions per size up to 14 tricks (default 100)")
    ap.add_argument("--positions-16", type=int, default=500,
                    help="random positions of 16 tricks, whose p99 is a target (default 500: five above it)")
    ap.add_argument("--agree", type=int, default=10_000, help="endings for the C/Python agreement (default 10,000)")
    ap.add_argument("--deals", type=int, default=20, help="whole deals analysed (default 20)")
    ap.add_argument("--season-games", type=int, default=8,
                    help="games of a generated season whose every deal is analysed (default 8)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if core.NAME != "C":
        sys.exit("bench/solver.py: the C core is not built (or FOREMAN_PURE=1); run make first")
    print(f"core: {core.NAME}; {args.positions} random positions per size ({args.positions_16} of 16 tricks), "
          "one sure() each\n")
    print(f"{'tricks left':>11}  {'median':>10}  {'worst':>10}  {'nodes/s':>9}  "
          f"{'nodes: median':>13}  {'p90':>8}  {'p99':>8}  {'max':>8}")
    rows = {t: timing(t, args.positions_16 if t == 16 else args.positions, args.seed) for t in (8, 10, 12, 14, 16)}
    for r in rows.values():
        n = r["nodes"]
        print(f"{r['tricks']:>11}  {r['median_ms']:>8.1f}ms  {r['worst_ms']:>8.1f}ms  {r['nodes_per_s'] / 1e6:>7.1f}M  "
              f"{quantile(n, .5) / 1e6:>12.2f}M  {quantile(n, .9) / 1e6:>7.2f}M  {quantile(n, .99) / 1e6:>7.2f}M  "
              f"{n[-1] / 1e6:>7.2f}M")
    py = timing(10, 20, args.seed, pure=True)
    print(f"{'10 (Python)':>11}  {py['median_ms']:>8.1f}ms  {py['worst_ms']:>8.1f}ms  {py['nodes_per_s'] / 1e6:>7.2f}M"
          f"   (reference, 20 positions)")
    ten, twelve, sixteen = rows[10], rows[12], rows[16]
    print(f"\n10 left, worst:     {ten['worst_ms']:8.1f} ms   (target < 50 ms)")
    print(f"12 left, median:    {twelve['median_ms']:8.1f} ms   (target < 50 ms)")
    print(f"16 tricks, median:  {sixteen['median_ms']:8.1f} ms   (target < 2,000 ms)")
    print(f"16 tricks, nodes:   median {quantile(sixteen['nodes'], .5) / 1e6:.2f} M (target <= 0.6 M), "
          f"p99 {quantile(sixteen['nodes'], .99) / 1e6:.2f} M (target <= 10 M)")
    if args.deals:
        w = whole_deals(args.deals, args.seed)
        print(f"whole-deal analyze, {len(w)} fair deals: median {quantile(w, .5):.2f} s (target < 1 s), "
              f"p99 {quantile(w, .99):.2f} s (target < 10 s), max {w[-1]:.2f} s")
    if args.season_games:
        w = season_deals(args.season_games, args.seed)
        print(f"whole-deal analyze, {len(w)} deals of {args.season_games} season games: median {quantile(w, .5):.2f} s, "
              f"mean {sum(w) / len(w):.2f} s, p90 {quantile(w, .9):.2f} s, max {w[-1]:.2f} s")
    if args.agree:
        t = time.perf_counter()
        n, bad = agree(args.agree, args.seed)
        print(f"C and Python on {n:,} random endings of 2-10 tricks: {n - bad:,} agree, {bad} differ "
              f"({time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
