"""Where validate's time goes, stage by stage, in one process (make bench prints the totals)."""

from __future__ import annotations

import gc
import sys
import time

import msgspec
import orjson

from foreman_cli import audit, engine, records, reader


def main(path: str) -> None:
    gc.disable()
    t0 = time.perf_counter()
    raws = list(reader.read_records([path]))
    t1 = time.perf_counter()
    for r in raws:
        orjson.loads(r.text)
    t2 = time.perf_counter()
    data = [records.decode(r.text) for r in raws]
    t4 = time.perf_counter()
    results = [engine.replay(g) for g in data]
    t5 = time.perf_counter()
    for r in raws:
        audit.fingerprint(r.text)
    t6 = time.perf_counter()
    enc = msgspec.json.Encoder()
    for r in results:
        enc.encode(r.to_dict())
    t7 = time.perf_counter()
    plays = sum(min(len(t.cards), 3) for g in data for d in g.deals for t in d.tricks)
    floor = t2 - t1
    rows = [("read lines, UTF-8", t1 - t0), ("orjson.loads (the floor)", floor),
            ("decode, checks and GameData", t4 - t2),
            ("replay (the rules engine)", t5 - t4), ("content hash", t6 - t5), ("JSON output", t7 - t6)]
    print(f"{len(raws):,} games, {plays:,} plays; cyclic GC off, one process")
    for name, t in rows:
        print(f"  {name:<42} {t:6.2f} s  {t / floor:5.2f} x floor  {plays / t:>12,.0f} plays/s")
    total = (t1 - t0) + (t7 - t2)
    print(f"  {'all of validate but start-up':<42} {total:6.2f} s  {total / floor:5.2f} x floor  "
          f"{plays / total:>12,.0f} plays/s")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python bench/profile.py RECORDS.jsonl")
    main(sys.argv[1])
