"""A season analysed (make bench-season): `foreman load --analyze --jobs 2` of generated games at the
default target, every card of every deal costed; the issue's figure is 1,000 games in 30 minutes.

The corpus is a club's season as `generate` plays it: six regulars, one weak (a random legal card
every time), fair deals, series of four games, at most four deals a game (most games last all four).
`--games 100` gives a quicker sample; its time a deal, not its total, is what compares.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FOREMAN = str(Path(sys.executable).parent / "foreman")
SEASON = ["--seed", "17", "--players", "ann,ben,cat,dan,eve,fay", "--weak", "fay", "--series-size", "4",
          "--max-deals", "4"]
TARGET_SECONDS = 30 * 60  # for 1,000 games


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "season.jsonl"
        with open(records, "w") as out:
            subprocess.run([FOREMAN, "generate", "-n", str(args.games), *SEASON], stdout=out, check=True)
        with open(records) as lines:
            deals = sum(len(json.loads(line)["deals"]) for line in lines)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([FOREMAN, "load", str(records), "--db", str(Path(tmp) / "season.duckdb"), "--analyze",
                        "--jobs", str(args.jobs), "--quiet"], check=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    per_game = wall / args.games
    print(f"load --analyze --jobs {args.jobs}, {args.games:,} games, {deals:,} deals: {wall:.0f} s wall "
          f"({wall / 60:.1f} min), {cpu:.0f} s of CPU, {wall / deals:.3f} s a deal, "
          f"peak RSS {after.ru_maxrss / 1024:.0f} MB a process")
    print(f"at that rate 1,000 games take {per_game * 1000 / 60:.1f} min (target under {TARGET_SECONDS // 60})")


if __name__ == "__main__":
    main()
