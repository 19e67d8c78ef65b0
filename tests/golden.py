"""Golden outputs of the samples: `python tests/golden.py --write` regenerates them (make golden)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
sys.path.insert(0, str(ROOT))

from foreman_cli.cli import app  # noqa: E402


def cases() -> dict[str, list[str]]:
    """Golden file name -> foreman arguments (paths relative to the repository root)."""
    out = {"validate-samples.txt": ["validate", "samples/"],
           "validate-samples.jsonl": ["validate", "--json", "samples/"],
           "settle-samples.txt": ["settle", "samples/"],
           "settle-samples.json": ["settle", "--json", "samples/"]}
    for f in sorted((ROOT / "samples").glob("*.json*")):
        rel = f"samples/{f.name}"
        if f.name.endswith(".jsonl"):
            for line in f.read_text().splitlines():
                gid = json.loads(line)["id"]
                out[f"replay-{gid}.txt"] = ["replay", rel, "--game", gid]
        else:
            out[f"replay-{f.stem}.txt"] = ["replay", rel]
    for gid in ("fri-1211-g1", "fri-1211-g2", "fri-1211-g3"):  # the evening kept at the table, in notation
        out[f"replay-{gid}.txt"] = ["replay", "samples/10-play-only-evening.fmn", "--game", gid]
    out["replay-fri-1211-g2-at-breach.txt"] = ["replay", "samples/10-play-only-evening.fmn", "--game", "fri-1211-g2",
                                               "--deal", "1", "--trick", "1"]
    out["replay-03-late-revoke-at-breach.txt"] = ["replay", "samples/03-late-revoke.json", "--deal", "1", "--trick", "9"]
    # A span the solver finishes at once, so the golden does not depend on the machine's speed.
    out["analyze-09-contested-claim.txt"] = ["analyze", "samples/09-contested-claim.json", "--from-trick", "8"]
    out["analyze-09-contested-claim.jsonl"] = ["analyze", "--json", "samples/09-contested-claim.json",
                                               "--from-trick", "8"]
    return out


def run(args: list[str]) -> str:
    """The output of one command, as a file to compare (exit code on the first line)."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        res = CliRunner().invoke(app, args, env={"NO_COLOR": "1", "COLUMNS": "120"})
    finally:
        os.chdir(cwd)
    return f"$ foreman {' '.join(args)}\n# exit {res.exit_code}\n{res.output}"


def main() -> None:
    if "--write" not in sys.argv:
        sys.exit("usage: python tests/golden.py --write")
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.glob("*"):
        old.unlink()
    for name, args in cases().items():
        (GOLDEN / name).write_text(run(args))
    print(f"wrote {len(cases())} golden files to {GOLDEN.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
