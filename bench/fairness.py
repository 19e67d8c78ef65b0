"""Fairness screen figures (make bench-fairness): false-positive rate on fair deals, power at a stated edge.

The edge: a dealer who, when he deals, keeps the better (by honours) of two shuffled hands, about
+0.48 SD in honours per own deal. Screens at alpha 0.01 with Holm's correction, 24 tests each.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from foreman_cli import fairness  # noqa: E402
from test_fairness import fair_deals  # noqa: E402


def main() -> None:
    rng = random.Random(1)
    screens, deals = 2000, 90
    any_flag = tests_flagged = tests = 0
    for _ in range(screens):
        s = fairness.screen(fair_deals(rng, deals), alpha=0.01)
        any_flag += bool(s.flagged)
        tests_flagged += len(s.flagged)
        tests += len(s.tests)
    print(f"fair deals: {screens} screens of {deals} deals: a screen flags something in {any_flag / screens:.2%} "
          f"(alpha 0.01, Holm: at most 1%); {tests_flagged} of {tests} tests flagged ({tests_flagged / tests:.3%})")
    for own in (30, 60, 90, 150, 300):
        hits = innocent = 0
        n = 200
        for _ in range(n):
            s = fairness.screen(fair_deals(rng, 3 * own, cheat="bob", peek=2), alpha=0.01)
            hits += any(t.player == "bob" for t in s.flagged)
            innocent += any(t.player != "bob" for t in s.flagged)
        print(f"peeking dealer (+0.48 SD honours), {own:>3} own deals of {3 * own}: flagged in {hits / n:.0%} of "
              f"{n} screens; an honest player flagged in {innocent / n:.1%}")


if __name__ == "__main__":
    main()
