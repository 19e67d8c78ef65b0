"""Where a load's time goes (make bench-load): the replay and staging alone, then the archive's
writes alone, on batches already staged, through the same code as `foreman load`.

The second figure is the floor of any load on this machine: DuckDB storing rows that cost
nothing to make. Never part of `make test`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from foreman_cli import store  # noqa: E402
from foreman_cli.audit import CrossChecks, checked_batches, staged_line  # noqa: E402


def staged(path: str, jobs: int) -> tuple[list, float]:
    """Every batch of the file replayed and staged as `load` stages it, and the seconds it took."""
    t = time.perf_counter()
    store._arrow_without_pandas()
    parts = store.load_pieces([path])
    batches = list(checked_batches(parts, None, jobs, shape=staged_line, stage=store.stage_tables, fast=True))
    return batches, time.perf_counter() - t


def written(batches: list, db: str) -> tuple[float, float]:
    """The seconds the archive's writes of those batches take, and the file's size in MB."""
    t = time.perf_counter()
    store._store(store._Archive(db), iter(batches), False, None, CrossChecks(hold=False))
    return time.perf_counter() - t, os.path.getsize(db) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("corpus", nargs="?", default=str(ROOT / "bench" / "out" / "corpus-1-200mb.jsonl"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    batches, t_stage = staged(args.corpus, args.jobs)
    print(f"{args.corpus}: {sum(len(b.results) for b in batches):,} games in {len(batches)} batches")
    print(f"replay and stage, {args.jobs} workers, nothing written: {t_stage:6.2f} s")
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            seconds, mb = written(batches, str(Path(tmp) / "parts.duckdb"))
        print(f"the archive's writes alone, on staged batches:  {seconds:6.2f} s  ({mb:.0f} MB file)")


if __name__ == "__main__":
    main()
