"""Ratings figures (make bench-ratings): `foreman ratings` over an archive of 100,000 won games, and
whether the role term earns its place (how well the model foresees the winner with it and without).

The speed archive: games of a club of 40 regulars drawn three at a time, on stacked deals, so each
game ends in its first deal and the load is quick. The role term is judged on fair deals (the
roles matter only there: a stacked deal's winner is whoever got the top cards): 5,000 games of
six regulars, one of them weak (a random legal card every time).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from foreman_cli import archive  # noqa: E402
from foreman_cli.ratings import rate_games  # noqa: E402

FOREMAN = str(Path(sys.executable).parent / "foreman")


def build(db: Path, games: int, *options: str) -> None:
    records = db.with_suffix(".jsonl")
    with open(records, "w") as out:
        subprocess.run([FOREMAN, "generate", "-n", str(games), *options], stdout=out, check=True)
    subprocess.run([FOREMAN, "load", str(records), "--db", str(db), "--quiet"], check=True)
    records.unlink()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "club.duckdb"
        t = time.perf_counter()
        build(db, args.games, "--seed", "5", "--players", ",".join(f"p{i:02d}" for i in range(40)), "--stacked", "1",
              "--series-size", "4")
        print(f"archive of {args.games:,} generated games built in {time.perf_counter() - t:.0f} s")
        times = []
        for _ in range(args.rounds):
            t = time.perf_counter()
            subprocess.run([FOREMAN, "ratings", "--db", str(db), "--csv"], check=True, capture_output=True)
            times.append(time.perf_counter() - t)
        print(f"foreman ratings, {args.games:,} games: median {statistics.median(times):.2f} s "
              f"(target < 10 s), rounds {', '.join(f'{x:.2f}' for x in times)}")
        fair = Path(tmp) / "fair.duckdb"
        build(fair, 5000, "--seed", "21", "--players", "ann,ben,cat,dan,eve,fay", "--weak", "fay", "--series-size", "5")
        games = list(archive.won_games(str(fair)))
        print(f"fair deals, 5,000 games of six regulars (fay weak): {len(games):,} won")
        for term in (True, False):
            r = rate_games(games, role_term=term)
            print(f"role term {'on ' if term else 'off'}: mean -ln p(winner) {r.log_loss:.4f} (chance: 1.0986); "
                  f"weakest: {r.players[-1].player}" + (f"; roles mu {', '.join(f'{p.player} {p.mu:.2f}' for p in r.roles)}"
                                                         if r.roles else ""))


if __name__ == "__main__":
    main()
