"""The house style that a reader relies on: where heavy libraries are imported, how long a function is."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "foreman_cli"
# Who may import what (RULES of the brief): typer only the CLI, rich the views, duckdb the archive,
# pydantic the record models, pyspark the Spark jobs.
ALLOWED = {"typer": {"cli.py"}, "rich": {"render.py", "cli.py"}, "duckdb": {"store.py"},
           "pydantic": {"models.py"}, "pyspark": {"spark.py"}}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def test_heavy_libraries_are_imported_only_where_they_belong():
    for path in sorted(PACKAGE.glob("*.py")):
        for lib in _imports(path) & ALLOWED.keys():
            assert path.name in ALLOWED[lib], f"{path.name} imports {lib}"


def test_no_function_is_longer_than_80_lines():
    long = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 80:
                long.append(f"{path.name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert long == []


def test_a_json_run_loads_neither_rich_nor_duckdb_nor_the_models():
    code = ("import sys; from foreman_cli import cli, audit, records; "
            "print(sorted(m for m in ('rich', 'duckdb', 'pyarrow', 'foreman_cli.models') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_module_says_what_it_owns():
    for path in sorted(PACKAGE.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and doc.strip(), f"{path.name} has no docstring"


def test_what_a_code_does_is_in_its_registry_entry_not_in_the_views():
    # The modules that find a breach name its code; the ones that show, store or settle findings
    # ask the registry (severity, disputes, cross_game, shown_at, leaves_out) instead.
    import re
    from foreman_cli.findings import CODES
    for name in ("render.py", "report.py", "settle.py", "store.py", "cli.py", "trace.py", "spark.py", "results.py",
                 "events.py", "fairness_page.py", "certificate.py"):
        text = (PACKAGE / name).read_text()
        named = [c for c in CODES if re.search(rf"[\"']{c}[\"']", text)]
        assert named == [], f"{name} names {named}"
