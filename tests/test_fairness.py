"""The deal-fairness screen: exact distributions, corrections, its false-positive rate and its power."""

from __future__ import annotations

import json
import math
import random

import pytest
from typer.testing import CliRunner

from foreman_cli import fairness, stats_exact as sx
from foreman_cli.cards import RANK_OF
from foreman_cli.cli import app
from foreman_cli.generate import generate

from conftest import SAMPLES

runner = CliRunner()
PLAYERS = ("alice", "bob", "carol")


def test_exact_distributions():
    aces = sx.hypergeom(52, 4, 16)
    mean, sd = sx.moments(aces)
    assert math.isclose(sum(aces), 1) and math.isclose(mean, 16 / 13) and abs(sd - 0.8955) < 1e-4
    longest = sx.longest_suit(16)
    assert math.isclose(sum(longest), 1) and longest[3] == 0 and longest[4] > 0  # 16 cards: some suit has 4
    # the exact tail of a sum against counting every outcome of two deals
    brute = sum(a * b for i, a in enumerate(aces) for j, b in enumerate(aces) if i + j >= 5)
    assert math.isclose(sx.upper_tail(aces, 2, 5)[0], brute)


def _direct_sums(pmf, counts):
    """The distribution of the sum of n deals for each n in counts, convolving one deal at a time:
    the slow reference the exact tails are held to."""
    import numpy as np
    dist, out = np.ones(1), {}
    for n in range(1, max(counts) + 1):
        dist = np.convolve(dist, pmf)
        if n in counts:
            out[n] = dist
    return out


def test_tails_are_exact_against_a_direct_convolution():
    measures = [sx.hypergeom(52, 4, 16), sx.hypergeom(52, 16, 16), list(sx.longest_suit(16)), sx.hypergeom(52, 16, 4)]
    counts = (1, 7, 60, 250, 1200)
    for pmf in measures:
        mean = sum(k * p for k, p in enumerate(pmf))
        for n, dist in _direct_sums(pmf, counts).items():
            for shift in (-30, -3, 0, 2, 9, 25, 60):
                observed = max(0, round(n * mean + shift * math.sqrt(n)))
                want = float(dist[observed:].sum())
                got, method = sx.upper_tail(pmf, n, observed)
                assert method == "exact"
                if want > 1e-280:
                    assert abs(got - want) <= 1e-9 * want, (n, observed, got, want)


def test_the_tail_of_400_dealt_deals_with_553_aces_is_the_exact_one():
    # A normal approximation gave 3.886e-4 here, flagged under Holm at 0.01 with 24 tests;
    # the exact value (scipy and a Monte Carlo agree) is 4.329e-4, which is not.
    p, method = sx.upper_tail(sx.hypergeom(52, 4, 16), 400, 553)
    assert method == "exact" and abs(p - 4.3293004436690e-4) < 1e-9 * 4.33e-4
    assert 24 * p > 0.01


def test_tails_are_exact_at_a_hundred_thousand_deals():
    """A two-point pmf makes the sum binomial, whose tail integers give exactly."""
    n = 100_000
    for observed in (30_600, 30_900, 31_500, 32_000):
        # C(n, k) 4^k 9^(n-k), term by term from k = observed, until the rest cannot matter
        term = math.comb(n, observed) * 4 ** observed * 9 ** (n - observed)
        total, k = 0, observed
        while term and (k < 31_000 or term * 10 ** 30 > total):
            total += term
            term = term * (n - k) * 4 // ((k + 1) * 9)
            k += 1
        want = total / 13 ** n
        got, method = sx.upper_tail([9 / 13, 4 / 13], n, observed)
        assert method == "exact" and abs(got - want) <= 1e-9 * want, (observed, got, want)


def test_a_long_season_is_screened_without_recursion():
    """About 490 dealt deals a player once overflowed the recursion of the exact sums."""
    rng = random.Random(3)
    s = fairness.screen(fair_deals(rng, 3 * 700), 0.01, "holm")
    assert {t.method for t in s.tests} <= {"exact", "two-sample z"}
    assert all(t.deals >= 700 for t in s.tests if t.test == "aces")


def test_corrections():
    ps = [0.01, 0.04, 0.03, 0.005]
    assert sx.holm(ps) == [0.03, 0.06, 0.06, 0.02]
    assert [round(q, 4) for q in sx.benjamini_hochberg(ps)] == [0.02, 0.04, 0.04, 0.02]


def fair_deals(rng: random.Random, n: int, cheat: str | None = None, peek: int = 1):
    """n deals of shuffled decks, the dealer passing left; a cheat keeps the best of `peek` hands he deals."""
    for i in range(n):
        dealer = i % 3
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [deck[0:16], deck[16:32], deck[32:48]]
        if cheat is not None and PLAYERS[dealer] == cheat:
            for _ in range(peek - 1):
                rng.shuffle(deck)
                other = deck[0:16]
                # his pick of another shuffle: swap the two hands' cards (the deck stays one deck)
                if sum(RANK_OF[c] >= 9 for c in other) > sum(RANK_OF[c] >= 9 for c in hands[dealer]):
                    rest = [c for c in range(52) if c not in set(other)]
                    rng.shuffle(rest)
                    a, b = [s for s in range(3) if s != dealer]
                    hands[dealer], hands[a], hands[b] = other, rest[0:16], rest[16:32]
        kitty = [c for c in range(52) if c not in set(hands[0] + hands[1] + hands[2])]
        yield fairness.Dealt("g", i + 1, PLAYERS, dealer, tuple(map(tuple, hands)), tuple(kitty))


@pytest.mark.slow
def test_fair_deals_are_flagged_no_more_often_than_alpha():
    # 300 independent screens of 60 fair deals at alpha 0.01 (Holm): the family-wise rate is at
    # most 1%, about 3 screens in 300; 10 or more would happen by chance with p < 0.001.
    rng = random.Random(20261201)
    flagged = raw_small = raw = 0
    for _ in range(300):
        s = fairness.screen(fair_deals(rng, 60), alpha=0.01)
        flagged += bool(s.flagged)
        raw += len(s.tests)
        raw_small += sum(t.p < 0.01 for t in s.tests)
    assert flagged < 10
    # the uncorrected one-sided p-values are not too small: at most the nominal 1% plus noise
    assert raw_small / raw < 0.02


def test_a_dealer_who_peeks_is_found_and_only_he():
    # A cheat who keeps the better of two hands when he deals: an edge of about 0.56 SD in honours.
    rng = random.Random(7)
    hits = innocent = 0
    for _ in range(40):
        s = fairness.screen(fair_deals(rng, 180, cheat="bob", peek=2), alpha=0.01)
        assert s.deals == 180 and s.excluded == 0
        hits += any(t.player == "bob" for t in s.flagged)
        innocent += any(t.player != "bob" for t in s.flagged)
    assert hits >= 32  # power at least 80% with 60 of his own deals among 180
    # the two honest players are flagged at about the nominal rate (0.4 screens in 40 expected)
    assert innocent <= 3


def test_generated_cheat_is_flagged_and_fair_games_are_not(tmp_path):
    cheat = tmp_path / "cheat.jsonl"
    cheat.write_text("".join(json.dumps(r) + "\n" for r, _ in generate(
        60, 3, stacked=0.3, players=list(PLAYERS), stacked_by="carol", max_deals=3)))
    res = runner.invoke(app, ["fairness", str(cheat), "--json"])
    d = json.loads(res.output)
    assert res.exit_code == 1 and {t["player"] for t in d["tests"] if t["flagged"]} == {"carol"}
    assert d["correction"] == "holm" and d["alpha"] == 0.01 and d["excluded"] == 0
    # The verdict says who held the cards, by name: an accusation must not hang on a pronoun.
    words = runner.invoke(app, ["fairness", str(cheat)]).output
    assert "carol: dealing, carol held " in words and " them " not in words
    fair = tmp_path / "fair.jsonl"
    fair.write_text("".join(json.dumps(r) + "\n" for r, _ in generate(60, 3, stacked=0.0, max_deals=3)))
    res = runner.invoke(app, ["fairness", str(fair)])
    assert res.exit_code == 0 and "nothing beyond chance" in res.output


def test_broken_decks_are_left_out_and_counted(tmp_path):
    rec = [r for r, _ in generate(3, 5, inject="DEAL_DUPLICATE", stacked=0.0, max_deals=1)]
    p = tmp_path / "dup.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rec))
    d = json.loads(runner.invoke(app, ["fairness", str(p), "--json"]).output)
    assert d["excluded"] == 3 and d["deals"] == 0
    words = runner.invoke(app, ["fairness", str(p)]).output
    assert "0 deals (3 left out: not one deck of 52)" in words, words


def test_the_screen_names_only_the_reasons_deals_were_left_out(tmp_path):
    p = tmp_path / "fair.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r, _ in generate(4, 2, stacked=0.0, max_deals=1)))
    words = runner.invoke(app, ["fairness", str(p)]).output
    assert "4 deals (none left out)" in words and "0 left out" not in words, words
    words = runner.invoke(app, ["fairness", str(SAMPLES)]).output
    assert "(5 left out: recorded without their hands)" in words and "0 left out" not in words, words


def test_records_whose_deals_are_not_screened_are_counted_not_dropped(tmp_path):
    recs = [r for r, _ in generate(4, 2, stacked=0.0, max_deals=1)]
    other = json.loads(json.dumps(recs[0]))
    other["notes"] = "written up again the next day"
    p = tmp_path / "evening.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in [*recs, {"format": "foreman/1", "id": "torn"}, other]))
    words = runner.invoke(app, ["fairness", str(p)]).output
    assert ("4 deals (1 record left out: cannot be replayed, see foreman validate; "
            "1 game read again as another record: the first record screened)") in words, words
    d = json.loads(runner.invoke(app, ["fairness", str(p), "--json"]).output)
    assert (d["deals"], d["invalid_records"], d["differing_repeats"]) == (4, 1, 1)
    # Near miss: the same record twice is one game, screened once, and nothing is left out.
    p.write_text("".join(json.dumps(r) + "\n" for r in [*recs, recs[0]]))
    d = json.loads(runner.invoke(app, ["fairness", str(p), "--json"]).output)
    assert (d["deals"], d["invalid_records"], d["differing_repeats"]) == (4, 0, 0)
    # Only a record that cannot be replayed: the screen says so, rather than that no game was read.
    p.write_text(json.dumps({"format": "foreman/1", "id": "torn"}) + "\n")
    res = runner.invoke(app, ["fairness", str(p)])
    assert "0 deals (1 record left out" in res.output and "no game was read" not in res.output


def test_html_page_draws_the_distributions(tmp_path):
    out = tmp_path / "f.html"
    p = tmp_path / "g.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r, _ in generate(20, 1, stacked=0.0, max_deals=2,
                                                                 players=list(PLAYERS))))
    res = runner.invoke(app, ["fairness", str(p), "--html", str(out), "--correction", "bh"])
    page = out.read_text()
    # a picture for each test against chance: 7 a player (the comparison of dealers has none)
    assert res.exit_code in (0, 1) and page.count("<svg") == 21 and "Benjamini-Hochberg" in page
    assert "<script" not in page


def test_fairness_usage_errors(tmp_path):
    assert runner.invoke(app, ["fairness"]).exit_code == 2
    assert runner.invoke(app, ["fairness", "x.json", "--correction", "nope"]).exit_code == 2


def test_the_archive_gives_the_same_screen_as_the_records(tmp_path):
    p = tmp_path / "cheat.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r, _ in generate(
        40, 4, stacked=0.3, players=list(PLAYERS), stacked_by="bob", max_deals=3)))
    db = str(tmp_path / "a.duckdb")
    assert runner.invoke(app, ["load", str(p), "--db", db]).exit_code == 0
    from_records = json.loads(runner.invoke(app, ["fairness", str(p), "--json"]).output)
    res = runner.invoke(app, ["fairness", "--db", db, "--json"])
    assert res.exit_code == 1 and json.loads(res.output) == from_records
    assert runner.invoke(app, ["fairness", str(p), "--db", db]).exit_code == 2  # one of the two


def test_generated_games_are_fair_by_default(tmp_path):
    """`generate` shuffles fairly unless asked to stack: its default data flags nobody."""
    out = runner.invoke(app, ["generate", "-n", "200", "--seed", "5"]).stdout
    path = tmp_path / "fair.jsonl"
    path.write_text(out)
    res = runner.invoke(app, ["fairness", str(path), "--json"])
    assert res.exit_code == 0 and not any(t["flagged"] for t in json.loads(res.stdout)["tests"])
    stacked = runner.invoke(app, ["generate", "-n", "200", "--seed", "5", "--stacked", "0.3"]).stdout
    path.write_text(stacked)
    assert runner.invoke(app, ["fairness", str(path)]).exit_code == 1


def test_an_edge_that_rounds_to_nothing_is_shown_as_plus_zero(tmp_path):
    from foreman_cli.words import signed
    shown = [signed(v) for v in (-0.004, -0.0, 0.0, 0.004, -0.006, 1.234, -2.5)]
    assert shown == ["+0.00", "+0.00", "+0.00", "+0.00", "-0.01", "+1.23", "-2.50"]
    path = tmp_path / "g.jsonl"  # 60 fair games whose screen has edges between -0.005 and 0
    path.write_text(runner.invoke(app, ["generate", "--games", "60", "--seed", "5"]).stdout)
    table = runner.invoke(app, ["fairness", str(path)]).stdout
    assert " +0.00 " in table and "-0.00" not in table


def test_records_without_hands_leave_nothing_to_screen_and_say_so_without_an_empty_table():
    out = runner.invoke(app, ["fairness", f"{SAMPLES}/10-play-only-evening.fmn"]).stdout
    assert "Nothing to screen: no deal read has its hands recorded." in out and "edge (SD)" not in out
    one = runner.invoke(app, ["fairness", f"{SAMPLES}/01-clean-win.json"]).stdout  # one deal is enough to test
    assert "edge (SD)" in one and "Nothing to screen" not in one
