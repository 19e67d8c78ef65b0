"""The samples' outputs match their golden files (regenerate with `make golden`, never by hand)."""

from __future__ import annotations

import pytest

from golden import GOLDEN, cases, run


@pytest.mark.parametrize("name,args", sorted(cases().items()))
def test_golden(name, args):
    path = GOLDEN / name
    assert path.exists(), f"{path} is missing: run `make golden`"
    assert run(args) == path.read_text(), f"{name} differs: if the change is intended, run `make golden`"


def test_no_stale_golden_files():
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(cases())
