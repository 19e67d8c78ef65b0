"""Claims of the remaining tricks (docs/game.md §12): what is covered, the verdicts, the line, the edges."""

from __future__ import annotations

import json

import pytest

from builders import PLAYERS, base_deal, codes, game, no_win_deal, only, run
from foreman_cli import records
from foreman_cli.engine import position_at
from foreman_cli.board import Board
from foreman_cli.cards import CARD_OF


def claim(deal: dict, by: str, accepted: bool = False, **extra) -> dict:
    deal["claim"] = {"by": by, "accepted": accepted, **extra}
    return deal


def claimed_game(*deals: dict, **fields) -> dict:
    return game(list(deals), format="foreman/1.1", **fields)


# The base deal (dealer alice): bob (L) holds AH..3H, 3S 4S 7S and 2D; no one else holds a heart,
# alice holds the four top spades. After 8 tricks bob has 8 and claims the 4 he needs.

def test_contested_claim_that_needs_an_order_is_refuted_under_any_order():
    r = run(claimed_game(claim(base_deal(tricks=8), "bob", statement="the rest are mine")))
    f = only(r, "CLAIM_REFUTED")
    assert (f.deal, f.trick, f.player) == (1, 9, "bob")
    assert f.evidence["claim_rule"] == "any-order" and f.evidence["tricks_claimed"] == 4
    assert f.message.startswith("bob claimed the rest (4 tricks, contested); ")
    # The tricks are credited as claimed: bob wins, and the game is disputed for settling.
    assert r.status == "won" and r.winner == "bob" and r.deals[0].tricks == [0, 12, 0]
    assert [d.code for d in r.disputes] == ["CLAIM_REFUTED"]


def test_same_claim_holds_under_best_play():
    r = run(claimed_game(claim(base_deal(tricks=8), "bob")), {"claim_rule": "best-play"})
    assert codes(r) == [] and r.winner == "bob" and r.deals[0].claim.holds is True


def test_a_claim_from_hands_that_share_a_card_is_not_judged():
    # bob passes the kitty's AS (PASS_NOT_HELD): carol holds it, and so does alice after the kitty.
    # The search counts each card once, so it could refute the claim on a card played twice.
    deal = claim(base_deal(tricks=8), "bob")
    deal["passes"][0]["card"] = "AS"
    r = run(claimed_game(deal))
    judged = r.deals[0].claim
    assert codes(r) == ["PASS_NOT_HELD"] and judged.holds is None and judged.not_judged == "two hands hold AS"
    assert r.deals[0].tricks[1] == 12  # credited as claimed
    legal = run(claimed_game(claim(base_deal(tricks=8), "bob")))  # nearly: the pass as dealt is judged
    assert codes(legal) == ["CLAIM_REFUTED"] and legal.deals[0].claim.not_judged is None


def test_claim_rule_in_the_record_is_read():
    rec = claimed_game(claim(base_deal(tricks=8), "bob"), rules={"claim_rule": "best-play"})
    assert codes(run(rec)) == []


def test_accepted_claim_that_fails_is_doubtful_and_not_disputed():
    r = run(claimed_game(claim(base_deal(tricks=8), "bob", accepted=True)))
    f = only(r, "CLAIM_DOUBTFUL")
    assert f.severity == "warning" and (f.deal, f.trick, f.player) == (1, 9, "bob")
    assert r.disputes == [] and not r.has_errors


def _last_trick_claim(accepted: bool) -> dict:
    # no_win_deal's 16th trick: alice leads JS, the only spade left; she claims it instead.
    d = no_win_deal()
    d["tricks"] = d["tricks"][:15]
    return claim(d, "alice", accepted)


@pytest.mark.parametrize("accepted", [False, True])
def test_a_claim_that_holds_in_any_order_gives_no_finding(accepted):
    r = run(claimed_game(_last_trick_claim(accepted)))
    assert codes(r) == ["UNFINISHED"]
    assert r.deals[0].tricks == [5, 11, 0] and r.deals[0].claim.holds is True and r.deals[0].claim.tricks == 1


def test_line_is_legal_and_ends_with_the_lost_trick():
    rec = claimed_game(claim(base_deal(tricks=8), "bob"))
    r = run(rec)
    line = only(r, "CLAIM_REFUTED").evidence["line"]
    g = records.decode(json.dumps(rec))
    pos = position_at(g, 1, 9)
    masks = [sum(1 << c for c in h) for h in pos.hands]
    b = Board(masks, pos.to_move, pos.tricks, 8, 12)
    won_by_bob = 0
    for trick in line:
        assert b.leader == 1  # bob leads trick 9 and, winning, each trick after it
        for tok in trick:
            assert b.legal_mask() >> CARD_OF[tok] & 1, (tok, trick)
            w = b.play(CARD_OF[tok])
        won_by_bob += w == 1
    assert w != 1 and won_by_bob == len(line) - 1
    # The message names the winner of that trick, not a pronoun a reader could take for the claimer.
    f = only(r, "CLAIM_REFUTED")
    stopper = PLAYERS[w]
    assert f.evidence["stopper"] == stopper and f"stops bob: {stopper} " in f.message


def test_foreman_1_record_with_a_claim_is_refused_at_the_claim():
    rec = claimed_game(claim(base_deal(tricks=8), "bob"))
    rec["format"] = "foreman/1"
    r = run(rec)
    f = only(r, "RECORD_SCHEMA")
    assert r.status == "invalid" and f.path == "$.deals[0].claim" and "foreman/1.1" in f.message


def test_claim_by_a_stranger_is_refused():
    r = run(claimed_game(claim(base_deal(tricks=8), "dave")))
    assert r.status == "invalid" and only(r, "RECORD_SCHEMA").path == "$.deals[0].claim.by"


def test_claim_after_the_win_in_the_deciding_deal_is_play_after_end():
    r = run(claimed_game(claim(base_deal(), "carol")))
    f = only(r, "PLAY_AFTER_END")
    assert (f.deal, f.trick) == (1, 13) and "claim" in f.message
    assert r.deals[0].tricks == [0, 12, 0]


def test_claim_in_a_deal_after_the_game_is_one_play_after_end_for_the_deal():
    later = claim(base_deal(dealer=1, tricks=3), "carol")
    r = run(claimed_game(base_deal(), later))
    assert codes(r) == ["PLAY_AFTER_END"] and only(r, "PLAY_AFTER_END").trick is None


def test_claim_when_no_trick_remains_claims_nothing():
    r = run(claimed_game(claim(no_win_deal(), "carol")))
    assert codes(r) == ["UNFINISHED"] and r.deals[0].tricks == [5, 11, 0] and r.deals[0].claim.tricks == 0


def test_a_deal_ended_by_a_claim_is_not_incomplete_and_play_goes_on():
    first = _last_trick_claim(False)
    r = run(claimed_game(first, base_deal(dealer=1)))
    assert codes(r) == [] and r.status == "won" and r.deals_played == 2
    # Without the claim the short first deal is DEAL_INCOMPLETE: the claim is what ends it.
    del first["claim"]
    assert "DEAL_INCOMPLETE" in codes(run(claimed_game(first, base_deal(dealer=1))))


def test_claim_that_wins_the_game_settles_on_the_credited_tricks():
    r = run(claimed_game(claim(base_deal(tricks=8), "bob"), stake="1.00"), {"claim_rule": "best-play"})
    assert r.deciding.tricks == [0, 12, 0] and r.deals_played == 1
    assert {p: str(v) for p, v in r.net.items()} == {"alice": "-2.00", "bob": "4.00", "carol": "-2.00"}


def test_both_decoders_read_a_claim_alike():
    rec = claimed_game(claim(base_deal(tricks=8), "bob", statement="mine"))
    text = json.dumps(rec)
    fast, careful = records.decode(text), records.decode_careful(text)
    assert fast.deals[0].claim == careful.deals[0].claim
    assert (fast.deals[0].claim.by, fast.deals[0].claim.accepted, fast.deals[0].claim.statement) == ("bob", False, "mine")


def test_claim_needs_accepted():
    d = base_deal(tricks=8)
    d["claim"] = {"by": "bob"}
    r = run(claimed_game(d))
    assert r.status == "invalid" and only(r, "RECORD_SCHEMA").path == "$.deals[0].claim.accepted"


def test_settle_counts_a_doubtful_claim_and_says_so():
    from foreman_cli import settle
    rec = claimed_game(claim(base_deal(tricks=8), "bob", accepted=True), stake="1.00")
    s = settle.settle([run(rec)])
    g = s.games[0]
    assert g.counted and not g.disputed
    assert g.claims == ["deal 1: bob claimed the rest, tricks 9-12 (accepted); under claim_rule any-order it fails"]
    assert s.to_dict()["games"][0]["claims"] == g.claims
