"""The solver: the Python reference against brute force, the C core against the reference, the Board."""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from foreman_cli import bounds, core, solver
from foreman_cli.board import Board
from foreman_cli.claims import covered

needs_c = pytest.mark.skipif(core._core is None, reason="the C core is not built (or FOREMAN_PURE=1)")


def random_board(rng: random.Random, tricks: int, in_trick: int = 0, target: int | None = None) -> Board:
    """A random ending: `tricks` cards a hand, random tallies below the target, maybe a trick begun."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[s * tricks:(s + 1) * tricks]) for s in range(3)]
    played = 16 - tricks
    target = target or rng.choice([12, 12, 8, 16, played // 2 + 3])
    tallies = [0, 0, 0]
    for _ in range(played):
        tallies[rng.randrange(3)] += 1
    tallies = [min(t, target - 1) for t in tallies]
    b = Board(hands, rng.randrange(3), tallies, played, target)
    for _ in range(in_trick):
        b.play(rng.choice(b.legal_moves()))
    return b


def uneven_board(rng: random.Random) -> Board:
    """A broken record's ending: hands of 0-5 cards each, any tallies and target, maybe a trick begun."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands, k = [], 0
    for size in (rng.randint(0, 5) for _ in range(3)):
        hands.append(sum(1 << c for c in deck[k:k + size]))
        k += size
    played, target = rng.randint(0, 15), rng.choice([3, 5, 8, 12, 16])
    tallies = [0, 0, 0]
    for _ in range(played):
        tallies[rng.randrange(3)] += 1
    b = Board(hands, rng.randrange(3), [min(t, target - 1) for t in tallies], played, target)
    for _ in range(rng.randint(0, 2)):
        if not b.is_over():
            b.play(rng.choice(b.legal_moves()))
    return b


def brute_sure(b: Board, x: int, seen: dict | None = None) -> int:
    """Every line of play tried; `seen` (optional) remembers the positions met at a trick's start."""
    if b.is_over():
        return b.tallies[x]
    key = b.key() if seen is not None and not b.trick else None
    if key is not None and key in seen:
        return seen[key]
    vals = []
    legal = b.legal_mask()
    while legal:  # every legal card, lowest first: the order cannot change a full search's value
        card = (legal & -legal).bit_length() - 1
        legal &= legal - 1
        b.play(card)
        vals.append(brute_sure(b, x, seen))
        b.undo()
    value = max(vals) if b.turn == x else min(vals)
    if key is not None:
        seen[key] = value
    return value


def brute_claim_holds(b: Board, x: int, k: int, best_play: bool, won: int = 0) -> bool:
    if won >= k:
        return True
    res = []
    for c in b.legal_moves():
        w = b.play(c)
        res.append(False if w is not None and w != x else brute_claim_holds(b, x, k, best_play, won + (w is not None)))
        b.undo()
    return any(res) if best_play and b.turn == x else all(res)


def claim_k(b: Board, x: int) -> int:
    return covered([h.bit_count() for h in b.hands], b.tallies[x], b.played, b.target)


def check_line(b: Board, x: int, line: list[int]) -> None:
    """A refuting line is legal, X wins every trick of it before the last, and loses the last."""
    b = b.copy()
    results = []
    for c in line:
        assert b.legal_mask() >> c & 1, "an illegal card in the line"
        w = b.play(c)
        if w is not None:
            results.append(w)
    assert results and results[-1] != x and all(w == x for w in results[:-1])


@pytest.mark.parametrize("seed", range(3))
def test_reference_matches_brute_force(seed):
    rng = random.Random(seed)
    for _ in range(120):
        b = random_board(rng, rng.randint(1, 4), rng.randint(0, 2))
        if b.is_over():
            continue
        x = rng.randrange(3)
        key = b.key()
        assert solver.sure(b, x) == brute_sure(b, x)
        assert b.key() == key, "the search must leave the board as it found it"
        if not b.trick:
            k = claim_k(b, x)
            for best in (False, True):
                line = solver.claim_line(b, x, k, best)
                assert (line is None) == brute_claim_holds(b, x, k, best)
                if line is not None:
                    check_line(b, x, line)


@pytest.mark.parametrize("seed,uneven", [(0, False), (1, False), (2, True), (3, True)])
def test_a_bound_inside_a_trick_holds_against_brute_force(seed, uneven):
    # Whenever one side is sure of the trick in progress and the bound decides "X ends with v",
    # every line of play agrees: a wrong side, winner, quick-trick count or count of the tricks
    # after this one (hands of a broken record differ in size) shows here.
    rng = random.Random(300 + seed)
    decided = 0
    for _ in range(250 if not uneven else 600):
        b = uneven_board(rng) if uneven else random_board(rng, rng.randint(1, 4), rng.randint(1, 2))
        if b.is_over() or not b.trick:
            continue
        x = rng.randrange(3)
        value = brute_sure(b, x)
        for v in range(b.tallies[x] + 1, min(b.target, b.tallies[x] + b.tricks_left()) + 1):  # the tests a search asks
            bound = bounds.trick_bound(b, x, v)
            if bound is not None:
                decided += 1
                assert bound[0] == (value >= v), (b.key(), x, v)
    assert decided > 100, "the positions drawn should often be decided inside the trick"


@pytest.mark.reference_only
@pytest.mark.parametrize("seed,uneven", [(0, False), (1, True)])
def test_winners_x_keeps_against_an_opponents_lead_hold_against_brute_force(seed, uneven):
    # The bound counts X's winners less those he must discard once the opponents' other leads use up
    # his losers; a count with too few tricks left, a discard too many, a suit's last winner given up
    # or an opponent reaching the target with those leads shows here (uneven hands catch each).
    rng = random.Random(500 + seed)
    counted = 0
    for _ in range(20000 if uneven else 2500):  # a broken record's drawn ending has often a trick begun
        b = uneven_board(rng) if uneven else random_board(rng, rng.randint(1, 4))
        if b.is_over() or b.trick:
            continue
        for x in range(3):
            if x == b.leader:
                continue
            kept, _ = bounds.kept_winners(b, x, b.tricks_left())
            if kept:
                counted += 1
                assert brute_sure(b, x) >= min(b.target, b.tallies[x] + kept), (b.key(), x, kept)
    assert counted > (20 if uneven else 100), "the positions drawn should often let X keep his winners"


def _one_more_decides(b: Board, x: int) -> int | None:
    """The tricks X is sure of when only "one more trick" (after his quick tricks, on lead) decides
    the test at this trick's start, else None."""
    rem, t = b.tricks_left(), b.tallies[x]
    if b.leader == x:
        cards, _ = bounds.quick(b)
        if t + cards.bit_count() + 1 > min(b.target, t + rem) or not bounds.one_more_trick(b, x, rem, cards)[0]:
            return None
        return t + cards.bit_count() + 1
    if t + 1 > b.target or bounds.kept_winners(b, x, rem)[0] or not bounds.one_more_trick(b, x, rem)[0]:
        return None
    return t + 1


@pytest.mark.slow
@pytest.mark.reference_only
@pytest.mark.parametrize("seed", range(2))
def test_a_trick_x_cannot_be_kept_from_holds_against_brute_force(seed):
    # Where no quick trick or winner decides it, X is sure of one more trick when the opponents
    # cannot clear a guard of his; a guard cut too short, leads miscounted, X's lead forgotten or an
    # opponent reaching the target first shows here. Endings of three to six tricks.
    rng = random.Random(700 + seed)
    checked = {True: 0, False: 0}  # X on lead or not
    for _ in range(40000):
        b = random_board(rng, rng.randint(3, 6))
        for x in range(3):
            sure = None if b.is_over() else _one_more_decides(b, x)
            if sure is not None and checked[b.leader == x] < 30:
                checked[b.leader == x] += 1
                assert brute_sure(b, x, {}) >= sure, (b.key(), x, sure)
        if checked[False] >= 30 and checked[True] >= 3:
            break
    assert checked[False] >= 30 and checked[True] >= 3, checked


@pytest.mark.parametrize("pure", [False, True])
def test_both_cores_solve_a_broken_records_uneven_hands_as_brute_force_does(pure):
    rng = random.Random(77)
    for _ in range(600):
        b = uneven_board(rng)
        if b.is_over():
            continue
        x = rng.randrange(3)
        assert core.SureTricks(x, b, pure=pure).sure(b) == brute_sure(b, x), (b.key(), x)


def boards_under_two_targets(seed: int):
    """(board under target 12, the same under target 10, a seat): tallies of 7-9, so that the
    target decides what X can be sure of."""
    rng = random.Random(seed)
    for _ in range(60):
        hands = random_board(rng, rng.randint(3, 6)).hands
        tallies, leader, x = [rng.randint(7, 9) for _ in range(3)], rng.randrange(3), rng.randrange(3)
        b = Board(list(hands), leader, tallies, 16 - hands[0].bit_count(), 12)
        yield b, Board(list(hands), leader, tallies, b.played, 10), x


@pytest.mark.parametrize("pure", [False, True])
def test_one_search_asked_under_another_target_answers_as_a_new_one(pure):
    # Entries that name tallies hold for one target: a search reused under another must not use them.
    for b, low, x in boards_under_two_targets(41):
        reused = core.SureTricks(x, b, pure=pure)
        reused.sure(b)
        assert reused.sure(low) == core.SureTricks(x, low, pure=pure).sure(low), (b.key(), x)


@needs_c
def test_a_table_handed_on_to_a_new_search_keeps_nothing_of_the_old_one():
    # The core hands an ended search's tables to the next search without clearing them; entries
    # that name tallies hold for one target, so one left by a search under another would be wrong.
    for b, low, x in boards_under_two_targets(43):
        core.SureTricks(x, b).sure(b)  # ended: its tables go back to the core
        assert core.SureTricks(x, low).sure(low) == solver.Paranoid(x).sure(low), (b.key(), x)


@needs_c
@pytest.mark.parametrize("seed", range(4))
def test_c_core_matches_the_reference(seed):
    rng = random.Random(100 + seed)
    for _ in range(150):
        b = random_board(rng, rng.randint(2, 7), rng.randint(0, 2))
        if b.is_over():
            continue
        x = rng.randrange(3)
        assert core.SureTricks(x, b).sure(b) == core.SureTricks(x, b, pure=True).sure(b)
        if not b.trick:
            k = claim_k(b, x)
            for best in (False, True):
                c_line = core.claim_line(b, x, k, best)
                assert (c_line is None) == (core.claim_line(b, x, k, best, pure=True) is None)
                if c_line is not None:
                    check_line(b, x, c_line)


@needs_c
def test_c_and_python_agree_on_best_cards():
    from foreman_cli.analysis import _analyse_play
    rng = random.Random(7)
    for _ in range(40):
        b = random_board(rng, rng.randint(2, 6), rng.randint(0, 2))
        if b.is_over():
            continue
        card = rng.choice(b.legal_moves())
        c = _analyse_play(b, [core.SureTricks(x, b) for x in range(3)], 1, card, None)
        p = _analyse_play(b, [core.SureTricks(x, b, pure=True) for x in range(3)], 1, card, None)
        assert c == p


def brute_play(b: Board, card: int):
    """A play's analysis by full minimax: every seat's value, every card's value."""
    from foreman_cli.analysis import PlayAnalysis
    mover, values = b.turn, {}
    for c in b.legal_moves():
        b.play(c)
        values[c] = brute_sure(b, mover)
        b.undo()
    best = max(values.values())
    sure = tuple(best if x == mover else brute_sure(b, x) for x in range(3))
    return PlayAnalysis(1, mover, card, sure, tuple(sorted(c for c, v in values.items() if v == best)),
                        best - values[card])


@pytest.mark.parametrize("pure", [False, True])
def test_a_floor_and_a_ceiling_clamp_the_value(pure):
    rng = random.Random(11)
    for _ in range(40):
        b = random_board(rng, rng.randint(2, 5), rng.randint(0, 2))
        x = rng.randrange(3)
        v = brute_sure(b, x)
        for floor in (None, v - 2, v - 1, v, v + 1):
            for ceiling in (None, v - 1, v, v + 1):
                want = v if floor is None else max(v, floor)
                want = want if ceiling is None else min(want, ceiling)
                if (ceiling is not None and ceiling < 0) or (floor is not None and ceiling is not None
                                                              and floor > ceiling):
                    continue  # bounds are counts of tricks, the floor at most the ceiling
                got = core.SureTricks(x, b, pure=pure).sure(b, None, rng.choice([None, v, v + 1]), floor, ceiling)
                assert got == want, (b.key(), x, floor, ceiling)


@pytest.mark.parametrize("pure", [False, True])
def test_what_earlier_plays_prove_gives_the_same_analysis_as_searching_afresh(pure):
    # An analysis carries each seat's value forward as a floor or an exact value; both must hold.
    from foreman_cli.analysis import _analyse_play, _Known
    rng = random.Random(23)
    for _ in range(25 if pure else 80):
        b = random_board(rng, rng.randint(2, 5))
        known = _Known()
        while not b.is_over():
            card = rng.choice(b.legal_moves())
            carried = _analyse_play(b, [core.SureTricks(x, b, pure=pure) for x in range(3)], 1, card, None, known)
            assert carried == _analyse_play(b, [core.SureTricks(x, b, pure=pure) for x in range(3)], 1, card, None)
            if b.tricks_left() <= 3:
                assert dataclasses.replace(carried, best=tuple(sorted(carried.best))) == brute_play(b, card)
            known = known.after(carried)
            b.play(card)


def test_guess_does_not_change_the_value():
    rng = random.Random(3)
    for _ in range(60):
        b = random_board(rng, rng.randint(2, 6))
        x = rng.randrange(3)
        v = solver.sure(b, x)
        for g in range(0, 17):
            assert solver.Paranoid(x).sure(b, g) == v
            assert core.SureTricks(x, b).sure(b, None, g) == v


@pytest.mark.parametrize("pure", [False, True])
def test_an_exhausted_budget_gives_none_never_a_number(pure):
    b = random_board(random.Random(1), 16, target=12)
    b.tallies, b.played = [0, 0, 0], 0
    key = b.key()
    assert core.SureTricks(0, b, pure=pure).sure(b, budget=0) is None
    assert b.key() == key, "a search cut short leaves the board as it found it"


@pytest.mark.parametrize("pure", [False, True])
def test_a_budget_is_work_so_the_same_search_decides_the_same_way(pure):
    rng = random.Random(5)
    for _ in range(20):
        b = random_board(rng, rng.randint(4, 7))
        x = rng.randrange(3)
        fresh = core.SureTricks(x, b, pure=pure)
        v = fresh.sure(b)
        needed = fresh.nodes
        if not needed:
            continue
        assert core.SureTricks(x, b, pure=pure).sure(b, budget=needed) == v
        assert core.SureTricks(x, b, pure=pure).sure(b, budget=needed - 1) is None


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 16), st.integers(0, 40))
def test_play_then_undo_restores_the_board(seed, tricks, plays):
    rng = random.Random(seed)
    b = random_board(rng, tricks, target=16)
    start = b.key()
    done = 0
    for _ in range(plays):
        if b.is_over():
            break
        b.play(rng.choice(b.legal_moves()))
        done += 1
    twin = b.copy()
    assert twin.key() == b.key()
    for _ in range(done):
        b.undo()
    assert b.key() == start and twin.key() != start or done == 0


@pytest.mark.parametrize("second, winning", [("9S", ("9S", 2)), ("AH", ("7S", 1)), ("3S", ("7S", 1))])
def test_the_card_winning_a_trick_in_progress_is_the_highest_of_the_suit_led(second, winning):
    from foreman_cli.cards import BIT, CANONICAL, CARD_OF
    hands = [BIT[CARD_OF["2C"]], BIT[CARD_OF["7S"]], BIT[CARD_OF[second]]]
    b = Board(hands, 1)
    b.play(CARD_OF["7S"])
    card, seat = b.winning()
    assert (CANONICAL[card], seat) == ("7S", 1)
    b.play(CARD_OF[second])
    card, seat = b.winning()
    assert (CANONICAL[card], seat) == winning


def test_board_refuses_a_card_not_held():
    b = Board([1, 2, 4], 0)
    with pytest.raises(ValueError, match="does not hold"):
        b.play(1)


def test_foreman_pure_forces_the_python_core():
    code = "from foreman_cli import core; print(core.NAME)"
    env = dict(os.environ, FOREMAN_PURE="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "Python"


@pytest.mark.parametrize("pure", [False, True])
def test_principal_line_proves_the_value(pure):
    rng = random.Random(21)
    for _ in range(40):
        b = random_board(rng, rng.randint(1, 6), rng.randint(0, 2))
        x = rng.randrange(3)
        s = core.SureTricks(x, b, pure=pure)
        v = s.sure(b)
        end = b.copy()
        for c in s.line(b):
            assert end.legal_mask() >> c & 1
            end.play(c)
        assert end.is_over() and end.tallies[x] == v


def test_a_hand_of_more_than_16_runs_is_searched_safely():
    # A broken record can deal a hand of any size: 26 cards, each its own run between the others'.
    h0 = sum(1 << c for c in range(0, 52, 2))
    h1 = sum(1 << c for c in range(1, 26, 2))
    h2 = sum(1 << c for c in range(27, 52, 2))
    b = Board([h0, h1, h2], 0, (0, 0, 0), 13, 16)  # three tricks left: the point is the 26 runs
    for x in range(3):
        assert core.SureTricks(x, b).sure(b) == core.SureTricks(x, b, pure=True).sure(b)
    k = covered([h.bit_count() for h in b.hands], 0, 13, 16)
    for best in (False, True):
        assert (core.claim_line(b, 0, k, best) is None) == (core.claim_line(b, 0, k, best, pure=True) is None)
