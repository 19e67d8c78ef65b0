"""Benchmarks (make bench): the JSON-parse floor against foreman on two generated corpora.

Prints plays/s, games/s and MB/s for each step and the ratios against their targets, on stacked
deals and on fair ones. Never part of `make test`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
BIN = Path(sys.executable).parent


# The two corpora: stacked deals end games in a few deals; fair deals make games of up to 30
# deals, many of them unfinished, as an evening's records often are.
KINDS = {"stacked": {"max_deals": 20, "stacked": 0.15}, "fair": {"max_deals": 30, "stacked": 0.0}}


def corpus(mb: float, seed: int, kind: str = "stacked") -> tuple[Path, int, int]:
    """A seeded JSON Lines corpus of about `mb` megabytes; returns its path, games and plays."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"corpus-{kind}-{seed}-{mb:g}mb.jsonl"
    meta = path.with_suffix(".meta.json")
    if not (path.exists() and meta.exists()):
        from foreman_cli.generate import generate
        games = plays = size = 0
        with open(path, "w") as f:
            batch = 0
            while size < mb * 1e6:
                for rec, _ in generate(200, seed * 100_000 + batch, prefix=f"bench-{seed}-{batch}",
                                       **KINDS[kind]):
                    line = json.dumps(rec, separators=(",", ":")) + "\n"
                    f.write(line)
                    size += len(line)
                    games += 1
                    plays += sum(len(t["cards"]) for d in rec["deals"] for t in d["tricks"])
                batch += 1
        meta.write_text(json.dumps({"games": games, "plays": plays}))
    m = json.loads(meta.read_text())
    return path, m["games"], m["plays"]


def timed(*cmds: list[str]) -> tuple[float, int]:
    """Wall seconds until every command, all started at once, has ended, and the largest peak RSS
    (KiB) among them; their output thrown away."""
    t = time.perf_counter()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for c in cmds]
    peak = 0
    for proc in procs:
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            raise SystemExit(f"{' '.join(proc.args)} failed ({code}): {proc.stderr.read().decode()[-500:]}")
        peak = max(peak, usage.ru_maxrss)
    return time.perf_counter() - t, peak


def halves(path: Path) -> list[Path]:
    """The corpus cut in two files of half its games each (made once)."""
    out = [path.with_name(f"{path.stem}.half{i}.jsonl") for i in (1, 2)]
    if not all(p.exists() for p in out):
        # Streamed: this process's size would count in the peak RSS of every command it starts.
        with open(path, "rb") as f:
            half = sum(1 for _ in f) // 2
        with open(path, "rb") as f, open(out[0], "wb") as first, open(out[1], "wb") as second:
            for n, line in enumerate(f):
                (first if n < half else second).write(line)
    return out


FLOOR = "import orjson,sys\nfor line in open(sys.argv[1],'rb'): orjson.loads(line)\n"


def play_only(path: Path) -> Path:
    """The corpus as records of the play (foreman/1.2): every deal without its hands, kitty,
    passes and discards (made once)."""
    out = path.with_name(path.stem + "-play-only.jsonl")
    if not out.exists():
        with open(path) as src, open(out, "w") as dst:
            for line in src:
                rec = json.loads(line)
                rec["format"] = "foreman/1.2"
                for d in rec["deals"]:
                    for part in ("hands", "kitty", "passes", "discards"):
                        d.pop(part, None)
                dst.write(json.dumps(rec) + "\n")
    return out


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def per_round(num: list[tuple[float, int]], den: list[tuple[float, int]]) -> list[float]:
    """Each round's time of one step over another's."""
    return [n[0] / d[0] for n, d in zip(num, den)]


def spread(ratios: list[float]) -> str:
    """Round-by-round ratios as their median and quartiles, then each in order."""
    q = sorted(ratios)
    quart = f"{q[len(q) // 4]:.2f}-{q[(3 * len(q)) // 4]:.2f}"
    return (f"rounds' median {median(q):.2f}, quartiles {quart}; round by round: "
            + " ".join(f"{r:.2f}" for r in ratios))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=float, default=100, help="size of each corpus in MB (default 100)")
    # A round's --jobs 2 ratio spreads widely on a shared machine: the median of many rounds counts.
    ap.add_argument("--repeat", type=int, default=9, help="runs of each step; the median counts")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", choices=[*KINDS, "both"], default="both")
    ap.add_argument("--foreman", default=str(BIN / "foreman"),
                    help="the foreman command to measure (another checkout's, to compare)")
    args = ap.parse_args()
    # Bytecode compiled as an install would have it, for every step: with PYTHONDONTWRITEBYTECODE
    # set, or a source newer than its bytecode, each run would compile the package first.
    import compileall
    compileall.compile_dir(str(ROOT / "foreman_cli"), quiet=1)
    cores = os.cpu_count() or 1
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}, "
          f"{platform.platform()}")
    print(f"median of {args.repeat} rounds, each round every step once")
    for kind in (KINDS if args.corpus == "both" else [args.corpus]):
        measure(kind, args, cores)
    foreman = args.foreman
    start = startup(foreman, corpus(args.mb / 10, args.seed + 1)[0])
    print(f"\ne    validate --json ONE_RECORD (start-up), median of {STARTUP_RUNS} runs: {start:.3f} s"
          "   (target < 0.3)")


def measure(kind: str, args, cores: int) -> None:
    """Every step on one corpus, round by round, then the figures against their targets."""
    path, games, plays = corpus(args.mb, args.seed, kind)
    small, s_games, s_plays = corpus(args.mb / 10, args.seed + 1, kind)
    gz = path.with_suffix(".jsonl.gz")
    if not gz.exists():
        with open(path, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst)
    size = path.stat().st_size / 1e6
    foreman = args.foreman
    db = OUT / "bench.duckdb"
    fmn = path.with_suffix(".fmn")  # the same games as a scorer's notation
    if not fmn.exists():
        subprocess.run([str(BIN / "foreman"), "convert", str(path), "--to", "fmn", "-o", str(fmn)], check=True)

    seen = play_only(path)

    def fresh_load():
        for f in (db, Path(str(db) + ".wal")):
            f.unlink(missing_ok=True)
        return [foreman, "load", str(path), "--db", str(db)]

    steps = [
        ("a", "floor: orjson.loads of every line", lambda: [sys.executable, "-c", FLOOR, str(path)], plays, games),
        ("b", "validate --json --jobs 1", lambda: [foreman, "validate", "--json", "--jobs", "1", str(path)], plays, games),
        ("b.gz", "validate --json --jobs 1, gzip input", lambda: [foreman, "validate", "--json", "--jobs", "1", str(gz)],
         plays, games),
        ("b/10", "validate --json --jobs 1, a tenth of the games",
         lambda: [foreman, "validate", "--json", "--jobs", "1", str(small)], s_plays, s_games),
        ("f", "validate --json --jobs 1, the games as .fmn", lambda: [foreman, "validate", "--json", "--jobs", "1",
                                                                      str(fmn)], plays, games),
        ("g", "validate --json --jobs 1, as foreman/1.2 play only", lambda: [foreman, "validate", "--json", "--jobs",
                                                                            "1", str(seen)], plays, games),
        ("c", f"validate --json --jobs {cores}", lambda: [foreman, "validate", "--json", "--jobs", str(cores), str(path)],
         plays, games),
        ("d", "load into a fresh database", fresh_load, plays, games),
    ]
    pair = [[foreman, "validate", "--json", "--jobs", "1", str(h)] for h in halves(path)]
    print(f"\n== {kind} deals: {path.name}: {size:.1f} MB, {games:,} games, {plays:,} plays "
          f"(and a tenth: {s_games:,} games, {s_plays:,} plays)\n")
    print(f"{'step':<5} {'what':<44} {'seconds':>8} {'plays/s':>12} {'games/s':>9} {'MB/s':>7} {'peak RSS':>9}")
    # What the machine gives two processes that share nothing: --jobs 2 cannot beat it.
    steps.append(("c2", "two validate --jobs 1 at once, half each", None, plays, games))
    # Round by round, every step once a round: the machine's speed drifts within minutes.
    runs: dict[str, list[tuple[float, int]]] = {key: [] for key, *_ in steps}
    for _ in range(args.repeat):
        for key, _what, cmd, _p, _g in steps:
            runs[key].append(timed(*pair) if key == "c2" else timed(cmd()))
    t: dict[str, float] = {}
    rss: dict[str, int] = {}
    for key, what, _cmd, n_plays, n_games in steps:
        t[key] = median([r[0] for r in runs[key]])
        rss[key] = max(r[1] for r in runs[key])
        mb = size / 10 if key == "b/10" else size
        print(f"{key:<5} {what:<44} {t[key]:8.2f} {n_plays / t[key]:>12,.0f} {n_games / t[key]:>9,.0f} "
              f"{mb / t[key]:7.1f} {rss[key] / 1024:7.0f} MB")
    print()
    print(f"b/a  validate / floor:              {t['b'] / t['a']:.2f}   (target <= 2.0)")
    print(f"b    plays/s on one core:           {plays / t['b']:,.0f}   (target >= 1,000,000)")
    print(f"f    .fmn plays/s on one core:      {plays / t['f']:,.0f}   (target >= 1,000,000)")
    print(f"g/b  1.2 play only / 1.0 validate:  {t['g'] / t['b']:.2f}   (target <= 1.0)")
    print(f"b/c  speed-up with --jobs {cores}:          {t['b'] / t['c']:.2f}   (target >= 1.7)")
    print(f"     {spread(per_round(runs['b'], runs['c']))}")
    print(f"b/c2 the machine's own ceiling:     {t['b'] / t['c2']:.2f}   (two processes sharing nothing)")
    print(f"d/b  load time / validate's:        {t['d'] / t['b']:.2f}")
    print(f"b/(b/10) time for 10x the games:    {t['b'] / t['b/10']:.2f}   (target <= 11)")
    print(f"peak RSS validate / load:           {rss['b'] / 1024:.0f} MB / {rss['d'] / 1024:.0f} MB   "
          "(targets < 100 / < 400)")


STARTUP_RUNS = 15


def startup(foreman: str, corpus_path: Path) -> float:
    """Median wall time of `foreman validate --json` on one record."""
    one = OUT / "one-record.jsonl"
    with open(corpus_path) as f:
        one.write_text(f.readline())
    cmd = [foreman, "validate", "--json", str(one)]
    return median([timed(cmd)[0] for _ in range(STARTUP_RUNS)])


if __name__ == "__main__":
    main()
