"""The HTML report in a real browser (Playwright driving Debian's chromium): step-through, phone, print."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foreman_cli.cli import app

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (it is in the dev extra)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: .ci/run installs Debian's chromium")]

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
# Screenshots for people to look at: FOREMAN_SCREENSHOTS=DIR keeps them, else they go with the test's files.
SHOTS = Path(os.environ.get("FOREMAN_SCREENSHOTS") or tempfile.mkdtemp(prefix="foreman-shots-"))
runner = CliRunner()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def _report(tmp_path: Path, sample: str, *extra: str) -> Path:
    out = tmp_path / (sample.split(".")[0] + ".html")
    res = runner.invoke(app, ["report", str(SAMPLES / sample), "-o", str(out), *extra])
    assert res.exit_code == 0, res.output
    return out


def _open(browser, page_file: Path, width: int = 1000, height: int = 1300):
    page = browser.new_page(viewport={"width": width, "height": height})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"error: {e}"))
    page.on("request", lambda r: problems.append(f"request: {r.url}") if not r.url.startswith("file:") else None)
    page.goto(page_file.as_uri())
    return page, problems


def _shot(page, name: str, **kw) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), **kw)


def test_step_through_reaches_the_breach_and_shows_the_hands_there(browser, tmp_path):
    page, problems = _open(browser, _report(tmp_path, "03-late-revoke.json"))
    assert page.locator("#step-through").is_visible()
    assert page.inner_text("#where").startswith("deal 1, before trick 1 ")
    for _ in range(8):
        page.click("#next")
    assert page.inner_text("#where").startswith("deal 1, before trick 9 ")
    alice = page.locator('.step-hand[data-player="alice"]')
    # the card she played, at its place in her hand, and the hearts she had to follow with
    assert alice.locator(".card.offending").get_attribute("data-card") == "QD"
    assert sorted(alice.locator(".card.legal").evaluate_all("els => els.map(e => e.dataset.card)")) == \
        ["4H", "7H", "9H"]
    assert "REVOKE" in page.inner_text("#step-findings")
    page.locator("#step-through").scroll_into_view_if_needed()
    _shot(page, "step-through-at-breach.png")
    # the keys: to the start, then B for the first breach, then one on
    page.keyboard.press("Home")
    assert page.inner_text("#where").startswith("deal 1, before trick 1 ")
    page.keyboard.press("b")
    assert page.inner_text("#where").startswith("deal 1, before trick 9 ")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#where").startswith("deal 1, before trick 10 ")
    assert problems == []


def test_the_breach_is_marked_at_its_card_with_every_player_named(browser, tmp_path):
    page, problems = _open(browser, _report(tmp_path, "03-late-revoke.json"))
    row = page.locator("#d1t9")
    assert row.get_attribute("class") == "breach"
    plays = row.locator(".play").all_inner_texts()
    assert [p.split()[0] for p in plays] == ["bob", "carol", "alice"]
    assert row.locator(".play.offending").inner_text().replace("\n", " ").startswith("alice Q")
    _shot(page, "desktop.png", full_page=True)
    assert problems == []


def test_findings_sit_where_they_happened_and_the_money_status_is_said(browser, tmp_path):
    page, problems = _open(browser, _report(tmp_path, "08-friday-evenings.jsonl", "--game", "friday-1204-g3"))
    # DEALER_SUCCESSION right under deal 1's dealer line, naming the earlier game
    follows = page.locator("#deal-1 .dealer-line + .finding")
    assert "DEALER_SUCCESSION" in follows.inner_text() and "game friday-1204-g2" in follows.inner_text()
    assert page.inner_text(".money") == "Money: left out of the settlement: 1 breach of play (DEALER_SUCCESSION) " \
                                        "disputes the game."
    assert page.locator("#deal-1 .table-picture .seat.dealer").count() == 1
    clean, _ = _open(browser, _report(tmp_path, "01-clean-win.json"))
    assert clean.inner_text(".money") == "Money: counted in the settlement."
    assert problems == []


def test_deals_link_to_each_other(browser, tmp_path):
    page, problems = _open(browser, _report(tmp_path, "02-four-deals.json"))
    assert page.locator("section.deal").count() == 4
    page.click('#deal-1 nav.deals a[href="#deal-2"]')
    assert page.evaluate("location.hash") == "#deal-2"
    assert page.locator("#deal-4 nav.deals a").all_inner_texts() == ["← deal 3"]
    assert problems == []


def test_readable_on_a_390_px_phone(browser, tmp_path):
    page, problems = _open(browser, _report(tmp_path, "03-late-revoke.json"), width=390, height=844)
    # nothing wider than the screen: the page never scrolls sideways (a wide table scrolls in its box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("getComputedStyle(document.body).fontSize") == "13.3333px"  # 10pt
    _shot(page, "phone.png", full_page=True)
    assert problems == []


def test_prints_on_a4_without_rows_split_or_the_controls(browser, tmp_path):
    page, problems = _open(browser, _report(tmp_path, "02-four-deals.json"))
    page.emulate_media(media="print")
    assert not page.locator("#step-through").is_visible() and not page.locator(".js-only").first.is_visible()
    assert page.locator("table.tricks tr").first.evaluate("e => getComputedStyle(e).breakInside") == "avoid"
    pdf = page.pdf(format="A4")
    assert pdf[:4] == b"%PDF" and pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages") >= 2
    _shot(page, "print.png", full_page=True)
    assert problems == []


@pytest.fixture(scope="module")
def player_page(tmp_path_factory, analysed_archive) -> Path:
    """carol's season page from three analysed samples."""
    out = tmp_path_factory.mktemp("player") / "carol.html"
    res = runner.invoke(app, ["player", "carol", "--db", analysed_archive, "--html", str(out)])
    assert res.exit_code == 0, res.output
    return out


def test_the_player_page_shows_the_season_the_terminal_shows(browser, player_page):
    page, problems = _open(browser, player_page)
    text = page.inner_text("body")
    assert page.inner_text("h1") == "carol" and "3 games, 1 win" in text
    assert "after carol's 3 games with a winner" in text  # not "3 won games": she won 1
    assert page.locator("svg.chart").count() == 2  # luck and skill by evening, rating over time
    for anchor in ("luck", "rating", "roles", "tricks", "rivals", "lessons"):
        assert page.locator(f"h2#{anchor}").is_visible(), anchor
    # the season's sum says the identity: against quota = luck + skill + gifts + claims
    line = page.locator("h2#luck + p").inner_text()
    nums = [int(w.rstrip(".,")) for w in line.replace(":", " ").split() if w.rstrip(".,").lstrip("+-").isdigit()]
    against, parts = nums[1], nums[2:]
    assert against == sum(parts)
    lessons = page.locator("li.lesson")
    assert lessons.count() >= 3 and "would each have kept" in lessons.first.inner_text()  # several best cards
    assert lessons.first.locator(".card").count() > 5  # his hand drawn as cards
    _shot(page, "player.png", full_page=True)
    assert problems == []


def test_the_player_page_reads_on_a_phone_and_prints(browser, player_page):
    page, problems = _open(browser, player_page, width=390, height=844)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.emulate_media(media="print")
    assert page.pdf(format="A4")[:4] == b"%PDF"
    assert problems == []
