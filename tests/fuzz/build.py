"""Rebuild the hostile-input corpus in tests/fuzz/ (run: .venv/bin/python tests/fuzz/build.py).

Each file hides one kind of damage between good games (where the layout allows), so a test can
check both that the damage is reported with its place and that every good game is still read.
The expected outcome of each file is in EXPECT below, which the tests read.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent.parent))

from builders import game  # noqa: E402

# file -> (games read, of which replayable, the code the bad record must give)
EXPECT: dict[str, tuple[int, int, str | None]] = {}


def good(i: int) -> str:
    return json.dumps(game(id=f"good-{i}"))


def around(bad: bytes | str) -> bytes:
    if isinstance(bad, str):
        bad = bad.encode()
    return good(1).encode() + b"\n" + bad + b"\n" + good(2).encode() + b"\n"


def rec_with(**changes) -> str:
    r = game(id="bad")
    r.update(changes)
    return json.dumps(r)


def write(name: str, data: bytes, expect: tuple[int, int, str | None]) -> None:
    (HERE / name).write_bytes(data)
    EXPECT[name] = expect


def main() -> None:
    for f in HERE.iterdir():
        if f.suffix in (".json", ".jsonl", ".gz"):
            f.unlink()
    g = json.loads(good(0))
    write("empty.json", b"", (0, 0, None))
    write("blank-lines.jsonl", b"\n\n   \n", (0, 0, None))
    write("bom-crlf.jsonl", b"\xef\xbb\xbf" + around(good(3)).replace(b"\n", b"\r\n"), (3, 3, None))
    write("invalid-utf8.jsonl", around(good(3).replace("alice", "al\udcffce").encode("utf-8", "surrogateescape")),
          (3, 2, "RECORD_SYNTAX"))
    write("nul-bytes.jsonl", around(b"\x00\x00\x00"), (3, 2, "RECORD_SYNTAX"))
    write("truncated-line.jsonl", around(good(3)[:200]), (3, 2, "RECORD_SYNTAX"))
    write("not-an-object.jsonl", around("[1, 2, 3]"), (3, 2, "RECORD_SCHEMA"))
    write("number-line.jsonl", around("42"), (3, 2, "RECORD_SCHEMA"))
    write("dropped-field.jsonl", around(json.dumps({k: v for k, v in g.items() if k != "deals"})),
          (3, 2, "RECORD_SCHEMA"))
    write("extra-field.jsonl", around(rec_with(dealz=[])), (3, 2, "RECORD_SCHEMA"))
    write("wrong-types.jsonl", around(rec_with(players="alice,bob,carol")), (3, 2, "RECORD_SCHEMA"))
    write("float-stake.jsonl", around(rec_with(stake=1.5)), (3, 2, "RECORD_SCHEMA"))
    write("huge-number.jsonl", around(rec_with(series={"id": "s", "seq": 10**40})), (3, 2, "RECORD_SCHEMA"))
    write("negative-number.jsonl", around(rec_with(rules={"target": -3})), (3, 2, "RECORD_SCHEMA"))
    write("huge-stake.jsonl", around(rec_with(stake="9" * 500)), (3, 2, "RECORD_SCHEMA"))
    write("deep-nesting.jsonl", around('{"a":' * 20000 + "1" + "}" * 20000), (3, 2, "RECORD_SYNTAX"))
    write("deep-nesting-array.json", b"[" * 50000 + b"]" * 50000, (1, 0, "RECORD_SYNTAX"))
    write("long-string.jsonl", around(rec_with(notes="x" * 2_000_000)), (3, 3, None))
    write("long-name.jsonl", around(json.dumps(game(id="bad")).replace("alice", "a" * 300)), (3, 2, "RECORD_SCHEMA"))
    write("duplicate-players.jsonl", around(json.dumps(game(id="bad")).replace('"carol"', '"bob"')),
          (3, 2, "RECORD_SCHEMA"))
    write("card-out-of-deck.jsonl", around(json.dumps(game(id="bad")).replace('"AS"', '"1S"', 1)),
          (3, 2, "RECORD_SCHEMA"))
    write("markup-names.jsonl", around(json.dumps(game(id="bad")).replace("alice", "[bold red]x[/]:smile:")),
          (3, 3, None))
    write("duplicate-keys.jsonl", around(good(3)[:-1] + ', "id": "good-4"}'), (3, 3, None))
    body = b"\n".join(good(i).encode() for i in range(5)) + b"\n"
    write("truncated.jsonl.gz", gzip.compress(body)[:-25], (-1, -1, "RECORD_SYNTAX"))  # as far as it inflates
    z = bytearray(gzip.compress(body))
    z[len(z) // 2] ^= 0xFF
    write("corrupt.jsonl.gz", bytes(z), (-1, -1, "RECORD_SYNTAX"))  # how many survive depends on the block
    write("array-syntax-error.json", ("[" + good(1) + ",\n" + good(2)[:150] + "\n," + good(3) + "]").encode(),
          (2, 1, "RECORD_SYNTAX"))
    write("array-unclosed.json", ("[" + good(1) + ",\n" + good(2)).encode(), (3, 2, "RECORD_SYNTAX"))
    write("pretty-object.json", json.dumps(game(id="pretty"), indent=2).encode(), (1, 1, None))
    # Hardening II: NaN and Infinity, deep ext, a newline in the first record, arrays in .jsonl.
    write("nan-in-ext.jsonl", around(rec_with(ext={"a": [1, float("nan")]})), (3, 2, "RECORD_SYNTAX"))
    write("infinity-in-ext.jsonl", around(rec_with(ext={"a": float("inf"), "b": float("-inf")})),
          (3, 2, "RECORD_SYNTAX"))
    deep: dict = {}
    for _ in range(100):
        deep = {"a": deep}
    write("deep-ext.jsonl", around(rec_with(ext=deep)), (3, 2, "RECORD_SCHEMA"))
    broken_first = b'{"id": "broken\n"}\n' + good(1).encode() + b"\n" + good(2).encode() + b"\n"
    write("newline-in-first-record.jsonl", broken_first, (4, 2, "RECORD_SYNTAX"))
    write("newline-in-first-record.json", broken_first, (3, 2, "RECORD_SYNTAX"))
    write("array-line.jsonl", b"[1, 2]\n" + good(1).encode() + b"\n" + good(2).encode() + b"\n", (3, 2, "RECORD_SCHEMA"))
    write("deep-array-line.jsonl", b"[" * 5000 + b"]" * 5000 + b"\n" + good(1).encode() + b"\n" + good(2).encode() + b"\n",
          (3, 2, "RECORD_SYNTAX"))
    write("one-line-array.json", ("[" + ",".join(good(i) for i in range(300)) + "]").encode(), (300, 300, None))
    (HERE / "EXPECT.json").write_text(json.dumps(EXPECT, indent=1) + "\n")
    print(f"wrote {len(EXPECT)} files to {HERE}")


if __name__ == "__main__":
    main()
