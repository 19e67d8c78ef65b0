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
    for r in raws:
        records._FAST.decode(r.text)
    t3 = time.perf_counter()
    data = [records.decode(r.text) for r in raws]
    t4 = time.perf_counter()
    results = [engine.replay(g) for g in data]
    t5 = time.perf_counter()
    for r in raws:
        audit.hashlib.blake2b(r.text.encode(), digest_size=16).digest()
    t6 = time.perf_counter()
    enc = msgspec.json.Encoder()
    for r in results:
        enc.encode(r.to_dict())
    t7 = time.perf_counter()
    plays = sum(min(len(t.cards), 3) for g in data for d in g.deals for t in d.tricks)
    floor = t2 - t1
    rows = [("read lines, UTF-8", t1 - t0), ("orjson.loads (the floor)", floor),
            ("msgspec typed decode", t3 - t2), ("checks and GameData (incl. the decode)", t4 - t3),
            ("replay (the rules engine)", t5 - t4), ("content hash", t6 - t5), ("JSON output", t7 - t6)]
    print(f"{len(raws):,} games, {plays:,} plays; cyclic GC off, one process")
    for name, t in rows:
        print(f"  {name:<42} {t:6.2f} s  {t / floor:5.2f} x floor  {plays / t:>12,.0f} plays/s")
    total = (t1 - t0) + (t4 - t3) + (t7 - t4)
    print(f"  {'all of validate but start-up':<42} {total:6.2f} s  {total / floor:5.2f} x floor  "
          f"{plays / total:>12,.0f} plays/s")


if __name__ == "__main__":
    main(sys.argv[1])
