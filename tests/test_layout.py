"""The house style that a reader relies on: where heavy libraries are imported, how long a function is."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "foreman_cli"
# Who may import what (RULES of the brief): typer only the CLI, rich the views, duckdb the archive,
# pydantic the record models, pyspark the Spark jobs, openskill the ratings.
ALLOWED = {"typer": {"cli.py", "command.py", "season_cli.py"},
           "rich": {"render.py", "game_view.py", "ledger_view.py", "season_view.py", "cli.py"}, "duckdb": {"archive"},
           "pydantic": {"models.py"}, "pyspark": {"spark.py"}, "openskill": {"ratings.py"}}


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
    for path in sorted(PACKAGE.rglob("*.py")):
        for lib in _imports(path) & ALLOWED.keys():
            assert {path.name, path.parent.name} & ALLOWED[lib], f"{path.name} imports {lib}"


def test_no_function_is_longer_than_60_lines_and_no_module_than_600():
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        if len(text.splitlines()) > 600:
            long.append(f"{path.name} ({len(text.splitlines())} lines)")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 60:
                long.append(f"{path.name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert long == []


def test_no_two_classes_share_a_name():
    where: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert {name: places for name, places in where.items() if len(places) > 1} == {}


def test_a_json_run_loads_neither_rich_nor_duckdb_nor_the_models():
    code = ("import sys; from foreman_cli import cli, audit, records; "
            "print(sorted(m for m in ('rich', 'duckdb', 'pyarrow', 'foreman_cli.models') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_one_record_validate_loads_only_what_it_uses_and_bad_values_get_typers_messages(tmp_path):
    """The event classes (a traced replay's), the generator, the claims' judge and the solver,
    the archive's and the views' libraries load only where they are used."""
    from builders import game
    import json
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(game()) + "\n")
    code = ("import sys; from foreman_cli.cli import app\n"
            "try:\n    app(['validate', '--json', '--jobs', '2', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('rich', 'duckdb', 'pyarrow', 'multiprocessing', 'foreman_cli.models',"
            " 'foreman_cli.events', 'foreman_cli.generate', 'foreman_cli.claims', 'foreman_cli.solver',"
            " 'gzip') if m in sys.modules), file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert '"status":"won"' in run.stdout and run.stderr.strip() == "[]"
    from typer.testing import CliRunner
    from foreman_cli.cli import app
    for value, said in (("0", "greater than or equal to 1"), ("two", "valid integer"), ("--5", "valid integer"),
                        ("-3", "greater than or equal to 1"), ("٣", "valid integer")):
        res = CliRunner().invoke(app, ["validate", "--jobs", value, str(path)])
        assert res.exit_code == 2 and said in res.output, res.output
    res = CliRunner().invoke(app, ["validate", "--jobs", "9" * 20, str(path)])
    assert res.exit_code == 2 and "less than or equal to 1024" in res.output  # a pool of 10^20 never started
    res = CliRunner().invoke(app, ["validate", "--max-record-bytes", "9" * 20, str(path)])
    assert res.exit_code == 2 and "less than or equal to" in res.output  # it overflowed the reader
    res = CliRunner().invoke(app, ["fairness", str(path), "--alpha", "0.5", "--json"])
    assert res.exit_code in (0, 1, 3) and "Invalid value" not in res.output  # a decimal: typer's own path


def test_every_module_says_what_it_owns():
    for path in sorted(PACKAGE.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and doc.strip(), f"{path.name} has no docstring"


def test_no_module_but_the_findings_spells_a_code():
    import re
    from foreman_cli.findings import CODES
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "findings.py":
            continue
        named = [c for c in CODES if re.search(rf"[\"']{c}[\"']", path.read_text())]
        assert named == [], f"{path.name} names {named}"


def test_each_codes_example_is_its_class_called_on_sample_fields():
    import json
    from foreman_cli.findings import CODES, code_dicts
    for code, cls in CODES.items():
        f = cls(**cls.sample)
        assert f.code == code and f.text() == cls.example() and f.text().endswith(f"({code})")
        assert json.loads(json.dumps(f.to_dict()))["message"] == f.message
    assert [d["example"] for d in code_dicts(list(CODES))] == [cls.example() for cls in CODES.values()]


def test_a_run_that_names_its_command_builds_only_that_one_and_reads_the_same():
    """main() builds only the command asked for (typer builds every parser otherwise: 25 ms of
    start-up); its help and its usage errors are the whole app's, word for word."""
    from typer.main import get_command_name
    from typer.testing import CliRunner
    from foreman_cli.cli import app
    from foreman_cli.command import only_command
    names = [ci.name or get_command_name(ci.callback.__name__) for ci in app.registered_commands]
    assert len(names) > 10 and only_command("nope") is None
    runner = CliRunner()
    for name in names:
        one = only_command(name)
        assert [c.callback.__name__ for c in one.registered_commands] == [name.replace("-", "_")]
        for args in ([name, "--help"], [name, "--no-such-option"]):
            whole, alone = runner.invoke(app, args), runner.invoke(one, args)
            assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output), args


def test_every_test_the_docs_name_exists():
    """docs/ cites the test behind each decision; a test renamed or deleted must not leave a citation behind."""
    import re
    tests = PACKAGE.parent / "tests"
    names = {p.stem for p in tests.glob("test_*.py")}
    for path in tests.glob("*.py"):
        names |= {node.name for node in ast.walk(ast.parse(path.read_text()))
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}
    cited = {(doc.name, name) for doc in (PACKAGE.parent / "docs").glob("*.md")
             for name in re.findall(r"\btest_\w+", doc.read_text())}
    # a citation may shorten a long name and end it with '...'
    missing = sorted((doc, name) for doc, name in cited if not any(n.startswith(name) for n in names))
    assert not missing, missing
