"""Benchmarks (make bench): the JSON-parse floor against foreman on the same generated corpus.

Prints plays/s, games/s and MB/s for each step and the ratios. Never part of `make test`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
BIN = Path(sys.executable).parent


def corpus(mb: float, seed: int) -> tuple[Path, int, int]:
    """A seeded JSON Lines corpus of about `mb` megabytes; returns its path, games and plays."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"corpus-{seed}-{mb:g}mb.jsonl"
    meta = path.with_suffix(".meta.json")
    if not (path.exists() and meta.exists()):
        from foreman_cli.generate import generate
        games = plays = size = 0
        with open(path, "w") as f:
            batch = 0
            while size < mb * 1e6:
                for rec, _ in generate(200, seed * 100_000 + batch, max_deals=20, stacked=0.15,
                                       prefix=f"bench-{seed}-{batch}"):
                    line = json.dumps(rec, separators=(",", ":")) + "\n"
                    f.write(line)
                    size += len(line)
                    games += 1
                    plays += sum(len(t["cards"]) for d in rec["deals"] for t in d["tricks"])
                batch += 1
        meta.write_text(json.dumps({"games": games, "plays": plays}))
    m = json.loads(meta.read_text())
    return path, m["games"], m["plays"]


def timed(cmd: list[str], stdin=None) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of a command, output thrown away."""
    t = time.perf_counter()
    proc = subprocess.run(cmd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-500:]}")
    return dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


FLOOR = "import orjson,sys\nfor line in open(sys.argv[1],'rb'): orjson.loads(line)\n"


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=float, default=200, help="corpus size in MB (default 200)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each step; the median counts")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    path, games, plays = corpus(args.mb, args.seed)
    size = path.stat().st_size / 1e6
    foreman = str(BIN / "foreman")
    steps = {
        "a. floor: orjson.loads per line": [sys.executable, "-c", FLOOR, str(path)],
        "b. foreman validate --json": [foreman, "validate", "--json", str(path)],
    }
    print(f"corpus: {path.name}: {size:.1f} MB, {games:,} games, {plays:,} plays")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    times = {}
    for name, cmd in steps.items():
        runs = [timed(cmd)[0] for _ in range(args.repeat)]
        times[name] = t = median(runs)
        print(f"{name:<36} {t:7.2f} s  {plays / t:>12,.0f} plays/s  {games / t:>9,.0f} games/s  {size / t:7.1f} MB/s")
    a, b = times["a. floor: orjson.loads per line"], times["b. foreman validate --json"]
    print(f"ratio b/a (validate / floor): {b / a:.2f}")


if __name__ == "__main__":
    main()
