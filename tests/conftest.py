"""Test set-up: make tests/builders.py importable; fixtures several test modules share."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


@pytest.fixture(scope="session")
def analysed_archive(tmp_path_factory) -> str:
    """An archive of three samples with every card costed (load --analyze): made once, read by many."""
    from typer.testing import CliRunner
    from foreman_cli.cli import app
    db = str(tmp_path_factory.mktemp("analysed") / "a.duckdb")
    samples = [str(SAMPLES / n) for n in ("01-clean-win.json", "02-four-deals.json", "09-contested-claim.json")]
    res = CliRunner().invoke(app, ["load", *samples, "--db", db, "--analyze", "--quiet"])
    assert res.exit_code == 0, res.output
    return db
