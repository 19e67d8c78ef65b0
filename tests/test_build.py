"""The package builds and runs without a C compiler: the compiled core is optional."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_without_a_compiler_the_package_builds_and_runs_on_the_python_path(tmp_path):
    env = dict(os.environ, CC="false", CXX="false")  # every compile fails at once
    # From a copy of the sources: a `pip install .` of this tree leaves a build/ directory whose
    # compiled core setuptools would put in the wheel without compiling anything.
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "bench", "*.egg-info", "__pycache__", "*.so", "*.pyd", ".hypothesis", ".pytest_cache"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "w"),
                            str(src)], env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next((tmp_path / "w").glob("foreman_cli-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "foreman_cli").rglob("*.py")}
    assert modules <= set(names), sorted(modules - set(names))  # every module, the archive's too
    assert not any(n.endswith((".so", ".pyd")) for n in names)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    record = next(ROOT.glob("samples/*.jsonl"))
    # The venv's editable install of this tree would lend its built core: its finder is set aside.
    def installed(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c",
                               "import sys; sys.meta_path[:] = [f for f in sys.meta_path "
                               "if '__editable__' not in getattr(f, '__module__', '')]; "
                               "import foreman_cli, foreman_cli.core as c; print(c.NAME, foreman_cli.__file__); "
                               "sys.argv = ['foreman', *sys.argv[1:]]; "
                               "from foreman_cli.cli import main; main()", *args],
                              env=dict(os.environ, PYTHONPATH=str(target)), cwd=tmp_path, capture_output=True,
                              text=True)
    run = installed("validate", "--json", str(record))
    first = run.stdout.splitlines()[0]
    assert first.startswith("Python ") and str(target) in first, run.stdout[:500] + run.stderr[-500:]
    assert '"status"' in run.stdout and run.returncode in (0, 1)  # 1: a sample with breaches
    loaded = installed("load", str(record), "--db", str(tmp_path / "a.duckdb"))  # the archive's subpackage
    assert loaded.returncode == 0 and "games added" in loaded.stdout, loaded.stdout[-500:] + loaded.stderr[-500:]
