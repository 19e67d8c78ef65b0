"""Properties over generated games: legal games are clean, tallies add up, money sums to zero."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from builders import run
from foreman_cli import money, records
from foreman_cli.generate import CLAIM_CODES, INJECTABLE, generate
from foreman_cli.rules import CHOICES, HouseRules

rules_st = st.builds(
    HouseRules,
    quota=st.sampled_from(CHOICES["quota"]),
    target=st.integers(1, 16),
    return_rule=st.sampled_from(CHOICES["return_rule"]),
    kitty=st.sampled_from(CHOICES["kitty"]),
    deal_rotation=st.sampled_from(CHOICES["deal_rotation"]),
    next_dealer=st.sampled_from(CHOICES["next_dealer"]),
    claim_rule=st.sampled_from(CHOICES["claim_rule"]),
)
fast = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def one(seed, rules, inject=None, max_deals=6):
    (rec, where), = generate(1, seed, inject, rules, max_deals=max_deals)
    return rec, where


@fast
@given(seed=st.integers(0, 2**32), rules=rules_st)
def test_legal_games_have_no_error_findings(seed, rules):
    rec, _ = one(seed, rules)
    r = run(rec)
    assert not r.has_errors, [f.text() for f in r.findings]
    assert r.status in ("won", "unfinished")
    for d in r.deals:
        assert sum(d.tricks) == d.tricks_played
        assert d.tricks_played == 16 or d.decided or d is r.deals[-1]
        assert max(d.tricks) <= rules.target
    if r.status == "won":
        assert r.deciding.tricks[r.players.index(r.winner)] == rules.target


@fast
@given(seed=st.integers(0, 2**32), rules=rules_st)
def test_nets_sum_to_zero(seed, rules):
    rec, _ = one(seed, rules)
    r = run(rec)
    if r.net is not None:
        assert money.total(r.net.values()) == 0
        assert r.net[r.winner] > 0 or r.stake == 0


@fast
@given(seed=st.integers(0, 2**32))
def test_default_rules_someone_is_short_in_every_won_game(seed):
    rec, _ = one(seed, HouseRules(), max_deals=20)
    r = run(rec)
    if r.status == "won":
        assert len(r.short_of_quota) >= 1


@fast
@given(seed=st.integers(0, 2**32), rules=rules_st)
def test_dump_then_parse_gives_the_same_record(seed, rules):
    rec, _ = one(seed, rules)
    model = records.Game.model_validate_json(json.dumps(rec))
    again = records.Game.model_validate_json(model.model_dump_json(by_alias=True, exclude_unset=True))
    assert again == model
    assert json.loads(model.model_dump_json(by_alias=True, exclude_unset=True)) == rec


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), rules=rules_st, code=st.sampled_from(INJECTABLE))
def test_every_injected_breach_is_found_at_its_place(seed, rules, code):
    assume(not (code == "WRONG_DEALER" and (rules.deal_rotation == "free" or rules.target < 7)))
    assume(not (code in CLAIM_CODES and rules.target < 6))
    rec, where = one(seed, rules, code, max_deals=8)
    r = run(rec)
    place = (where.deal, where.trick, where.pass_, where.player, where.card)
    found = [(f.deal, f.trick, f.pass_, f.player, f.card) for f in r.findings if f.code == code]
    assert place in found, (place, [f.text() for f in r.findings])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), rules=rules_st)
def test_generated_claims_are_credited_and_only_wrong_ones_found(seed, rules):
    (rec, _), = generate(1, seed, rules=rules, claims=1.0, max_deals=8)
    r = run(rec)
    assert {f.code for f in r.findings} <= {"CLAIM_REFUTED", "CLAIM_DOUBTFUL", "UNFINISHED"}
    for deal, d in zip(rec["deals"], r.deals):
        assert sum(d.tricks) == d.tricks_played <= 16
        if "claim" in deal and d.claim.tricks:
            wrong = [f for f in r.findings if f.deal == d.number and f.code.startswith("CLAIM_")]
            assert (d.claim.holds is False) == bool(wrong)
            assert all(f.code == ("CLAIM_DOUBTFUL" if deal["claim"]["accepted"] else "CLAIM_REFUTED") for f in wrong)
