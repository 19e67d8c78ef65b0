"""Each finding code: a small record that triggers it and one that nearly does."""

from __future__ import annotations

from decimal import Decimal

import pytest

from builders import base_deal, codes, game, no_win_deal, only, position, run, run_many
from foreman_cli import cards as C, money
from foreman_cli.board import legal_cards
from foreman_cli.findings import DealIncomplete, DealSize


def short(tricks: int = 1, **kw):
    """The base deal cut after some tricks, as the last deal of an unfinished game."""
    return game([base_deal(tricks=tricks)], **kw)


# --- clean games ---


def test_base_game_is_clean_and_won():
    r = run(game(stake="1.00"))
    assert r.status == "won" and r.winner == "bob"
    assert codes(r) == []
    assert r.deals_played == 1
    d = r.deciding
    assert d.tricks == [0, 12, 0] and d.tricks_played == 12
    # alice dealt (D, quota 8), bob is L (5), carol R (3): both others short, k = 2.
    assert d.quotas == (8, 5, 3)
    assert r.net == {"alice": Decimal("-2.00"), "bob": Decimal("4.00"), "carol": Decimal("-2.00")}
    assert str(r.net["bob"]) == "4.00"


def test_no_win_deal_then_won_deal():
    r = run(game([no_win_deal(0), base_deal(1)]))
    assert codes(r) == []
    assert r.status == "won" and r.winner == "carol"  # carol is L when bob deals
    assert [d.tricks for d in r.deals] == [[5, 11, 0], [0, 0, 12]]
    assert r.deals_played == 2


def test_unfinished_is_a_warning_only():
    r = run(short(5))
    assert r.status == "unfinished" and codes(r) == ["UNFINISHED"]
    assert not r.has_errors
    assert r.deciding is None and r.to_dict()["deciding_tricks"] is None


def test_unfinished_full_deal_is_not_incomplete():
    r = run(game([no_win_deal(0)]))
    assert codes(r) == ["UNFINISHED"]


# --- the deal ---


def test_deal_size_hand_and_kitty():
    rec = short()
    rec["deals"][0]["hands"]["alice"].remove("10C")
    f = only(run(rec), "DEAL_SIZE")
    assert (f.deal, f.player, f.evidence["count"]) == (1, "alice", 15)
    rec = short()
    rec["deals"][0]["kitty"].append("10C")
    rec["deals"][0]["hands"]["alice"].remove("10C")
    r = run(rec)
    assert [(f.player, f.evidence["count"]) for f in r.findings if f.code == "DEAL_SIZE"] == [("alice", 15), (None, 5)]


def test_deal_duplicate_counts_copies():
    rec = short()
    rec["deals"][0]["kitty"][0] = "10C"  # alice holds 10C too; JS is dealt to nobody
    f = only(run(rec), "DEAL_DUPLICATE")
    assert (f.deal, f.card, f.evidence["holders"], f.evidence["kitty"]) == (1, "10C", ["alice"], 1)
    assert f.message == "10C was dealt 2 times (alice, the kitty)"
    assert "DEAL_SIZE" not in codes(run(rec))


def test_deal_duplicate_within_a_hand_is_held_twice():
    rec = short(0)
    deal = rec["deals"][0]
    deal["hands"]["bob"][deal["hands"]["bob"].index("4S")] = "3S"
    r = run(rec)
    assert only(r, "DEAL_DUPLICATE").card == "3S"
    pos = position(rec, 1, 1)
    assert pos.hands[1].count(C.card("3S")) == 2


# --- dealers ---


def test_wrong_dealer_and_near_miss():
    ok = game([no_win_deal(0), base_deal(1)])
    assert "WRONG_DEALER" not in codes(run(ok))
    bad = game([no_win_deal(0), base_deal(2)])
    f = only(run(bad), "WRONG_DEALER")
    assert (f.deal, f.player, f.evidence["expected"]) == (2, "carol", "bob")
    assert "WRONG_DEALER" not in codes(run(bad, {"deal_rotation": "free"}))
    # roles follow the recorded (wrong) dealer: alice is L of carol's deal and wins it.
    assert run(bad).winner == "alice"


# --- passes ---


def test_pass_sequence_missing_extra_and_swapped():
    rec = short()
    del rec["deals"][0]["passes"][2]
    f = only(run(rec), "PASS_SEQUENCE")
    assert (f.pass_, f.player) == (3, "alice")
    rec = short()
    rec["deals"][0]["passes"].append({"from": "bob", "to": "carol", "card": "3S", "returned": "6S"})
    f = only(run(rec), "PASS_SEQUENCE")
    assert (f.pass_, f.player) == (4, "bob")
    rec = short()
    p = rec["deals"][0]["passes"]
    p[0]["from"], p[0]["to"] = "carol", "bob"  # R gives to L: wrong players at position 1
    assert [x.pass_ for x in run(rec).findings if x.code == "PASS_SEQUENCE"] == [1]
    assert "PASS_SEQUENCE" not in codes(run(short()))


def test_pass_not_held_receiver_gets_it_anyway():
    rec = short(0)
    rec["deals"][0]["passes"][0]["card"] = "3C"  # bob has no 3C (alice does)
    r = run(rec)
    f = only(r, "PASS_NOT_HELD")
    assert (f.pass_, f.player, f.card) == (1, "bob", "3C")
    pos = position(rec, 1, 1)
    assert C.card("3C") in pos.hands[2] and C.card("2S") in pos.hands[1]


def test_return_not_held_card_just_received():
    rec = short(0)
    rec["deals"][0]["passes"][0]["returned"] = "2S"
    r = run(rec)
    f = only(r, "RETURN_NOT_HELD")
    assert (f.pass_, f.player, f.card) == (1, "carol", "2S")
    assert "RETURN_WRONG_CARD" not in codes(r)
    pos = position(rec, 1, 1)
    assert C.card("2S") in pos.hands[1] and C.card("7S") in pos.hands[2]


def test_return_wrong_card_highest_and_higher():
    rec = short(0)
    rec["deals"][0]["passes"][0]["returned"] = "5S"
    f = only(run(rec), "RETURN_WRONG_CARD")
    assert (f.pass_, f.player, f.card, f.evidence["expected"]) == (1, "carol", "5S", ["7S"])
    # under 'higher' any spade above 2S will do ...
    assert "RETURN_WRONG_CARD" not in codes(run(rec, {"return_rule": "higher"}))
    # ... but a diamond will not.
    rec["deals"][0]["passes"][0]["returned"] = "AD"
    r = run(rec, {"return_rule": "higher"})
    f = [f for f in r.findings if f.code == "RETURN_WRONG_CARD" and f.pass_ == 1][0]
    assert f.evidence["expected"] == ["7S", "6S", "5S"]
    # bob now holds AD, above the 2D he is given at pass 3, and returns 2H instead.
    assert [f.pass_ for f in r.findings if f.code == "RETURN_WRONG_CARD"] == [1, 3]


def test_return_any_card_when_void_and_higher_when_none_above():
    rec = short(0)
    assert "RETURN_WRONG_CARD" not in codes(run(rec))  # alice returns 2C for a diamond: void
    rec["deals"][0]["passes"][0]["card"] = "4S"
    rec["deals"][0]["passes"][0]["returned"] = "AD"
    # carol holds 5S 6S 7S, all above 4S; under 'higher' AD is wrong, under 'highest' too.
    assert "RETURN_WRONG_CARD" in codes(run(rec, {"return_rule": "higher"}))


# --- the kitty ---


def test_discard_count():
    rec = short(0)
    rec["deals"][0]["discards"].pop()
    f = only(run(rec), "DISCARD_COUNT")
    assert (f.deal, f.player, f.evidence["count"]) == (1, "alice", 3)
    assert len(position(rec, 1, 1).hands[0]) == 17


def test_discard_kitty_card_under_swap_but_not_pickup():
    rec = short(0)
    rec["deals"][0]["discards"][3] = "JS"
    f = only(run(rec), "DISCARD_NOT_HELD")
    assert (f.player, f.card) == ("alice", "JS")
    assert "DISCARD_NOT_HELD" not in codes(run(rec, {"kitty": "pickup"}))
    pos = position(rec, 1, 1)
    assert C.card("JS") not in pos.hands[0] and C.card("2H") in pos.hands[0]


def test_discard_found_nowhere_removes_nothing():
    rec = short(0)
    rec["deals"][0]["discards"][3] = "3H"  # bob's card
    for rules in (None, {"kitty": "pickup"}):
        f = only(run(rec, rules), "DISCARD_NOT_HELD")
        assert f.card == "3H"
    assert len(position(rec, 1, 1).hands[0]) == 17


# --- the play ---


def test_lead_out_of_turn():
    rec = short(0)
    rec["deals"][0]["tricks"] = [{"leader": "carol", "cards": ["3D", "3C", "AH"]}]
    r = run(rec)
    f = only(r, "LEAD_OUT_OF_TURN")
    assert (f.trick, f.player, f.evidence["expected"]) == (1, "carol", "bob")
    # cards go clockwise from carol: carol 3D, alice 3C, bob AH (bob revokes? he has 2D: yes)
    assert only(r, "REVOKE").player == "bob"


def test_next_leader_is_winner_even_after_wrong_lead():
    rec = short(0)
    rec["deals"][0]["tricks"] = [{"leader": "carol", "cards": ["AD", "3C", "2D"]},
                                 {"leader": "carol", "cards": ["3D", "4C", "AH"]}]
    r = run(rec)
    assert [f.trick for f in r.findings if f.code == "LEAD_OUT_OF_TURN"] == [1]


def test_trick_size_short_and_long():
    rec = short(0)
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["AH", "2C"]}]
    r = run(rec)
    assert (only(r, "TRICK_SIZE").trick, r.deals[0].tricks) == (1, [0, 1, 0])
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["AH", "2C", "3C", "KH"]}]
    r = run(rec)
    assert only(r, "TRICK_SIZE").evidence["count"] == 4
    assert "CARD_NOT_HELD" not in codes(r)  # the fourth card is ignored
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": []}, {"leader": "bob", "cards": ["AH", "2C", "3C"]}]
    r = run(rec)
    assert codes(r).count("TRICK_SIZE") == 1 and "LEAD_OUT_OF_TURN" not in codes(r)
    assert r.deals[0].tricks_played == 1
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["AH"]}]
    assert only(run(rec), "TRICK_SIZE").message == "1 card recorded, not 3"


def test_counts_of_one_are_said_in_the_singular():
    assert DealIncomplete(deal=1, trick=2, tricks=1, target=12).message == "the deal stops after 1 trick with nobody at 12"
    assert DealSize(deal=1, player="bob", count=1, expected=16).message == "bob was dealt 1 card, not 16"


def test_card_not_held_still_counts():
    rec = short(0)
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["AS", "2C", "3C"]}]
    r = run(rec)
    f = only(r, "CARD_NOT_HELD")
    assert (f.trick, f.player, f.card) == (1, "bob", "AS")
    assert r.deals[0].tricks == [0, 1, 0]


def test_revoke_with_evidence_and_near_miss():
    rec = short(0)
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["3S", "2C", "AS"]}]
    f = only(run(rec), "REVOKE")
    assert (f.deal, f.trick, f.player, f.card) == (1, 1, "carol", "2C")
    assert f.evidence == {"led": "S", "held": ["6S", "5S", "2S"]}
    assert f.message == "carol played 2C on a spade lead while holding 6S 5S 2S"
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["3S", "5S", "AS"]}]
    assert codes(run(rec)) == ["UNFINISHED"]


def test_card_not_held_and_revoke_together():
    rec = short(0)
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["3S", "AC", "AS"]}]
    assert codes(run(rec))[:2] == ["CARD_NOT_HELD", "REVOKE"]


def test_identical_cards_first_ranks_higher():
    rec = short(0)
    rec["deals"][0]["tricks"] = [{"leader": "bob", "cards": ["AH", "AH", "3C"]}]
    r = run(rec)
    assert r.deals[0].tricks == [0, 1, 0]


# --- the end ---


def test_play_after_end_trick_and_deal():
    rec = game()
    rec["deals"][0]["tricks"].append({"leader": "bob", "cards": ["3S", "5S", "JS"]})
    f = only(run(rec), "PLAY_AFTER_END")
    assert (f.deal, f.trick, f.evidence["won_at"]) == (1, 13, {"deal": 1, "trick": 12})
    rec = game([base_deal(0), base_deal(1)])
    f = only(run(rec), "PLAY_AFTER_END")
    assert (f.deal, f.trick) == (2, None)
    assert run(rec).deals_played == 1


def test_deal_incomplete_and_near_miss():
    d1 = no_win_deal(0)
    d1["tricks"] = d1["tricks"][:14]
    r = run(game([d1, base_deal(1)]))
    f = only(r, "DEAL_INCOMPLETE")
    assert (f.deal, f.trick) == (1, 15)
    assert "DEAL_INCOMPLETE" not in codes(run(game([d1])))


def test_target_option():
    r = run(game([base_deal(tricks=3)]), {"target": 3})
    assert r.status == "won" and r.deciding.tricks_played == 3


# --- claims and money ---


def test_claim_matches():
    rec = game(stake="1.00", currency="GBP", claimed={
        "winner": "bob", "tricks": {"alice": 0, "bob": 12, "carol": 0},
        "payments": [{"from": "alice", "to": "bob", "amount": "1.00"},
                     {"from": "alice", "to": "bob", "amount": "1"},
                     {"from": "carol", "to": "bob", "amount": "2.00"}]})
    assert codes(run(rec)) == []


def test_claim_mismatch_each_part():
    rec = game(stake="1.00", claimed={
        "winner": "carol", "tricks": {"bob": 11},
        "payments": [{"from": "alice", "to": "bob", "amount": "1.00"},
                     {"from": "carol", "to": "bob", "amount": "2.00"}]})
    r = run(rec)
    parts = [f.evidence["part"] for f in r.findings if f.code == "CLAIM_MISMATCH"]
    assert parts == ["winner", "tricks", "payments"]
    msg = [f.message for f in r.findings if f.evidence.get("part") == "payments"][0]
    assert "the table wrote alice pays bob 1.00; the rules say alice pays bob 2.00" in msg


def test_claim_nobody_won_on_unfinished():
    rec = short(3, claimed={"winner": None, "tricks": {"bob": 3}})
    assert codes(run(rec)) == ["UNFINISHED"]
    rec = short(3, claimed={"winner": "bob"})
    assert "CLAIM_MISMATCH" in codes(run(rec))


def test_nets_k1_and_k2_under_both_quotas():
    # k = 2 under 8-5-3: alice 0 of 8, carol 0 of 3.
    r = run(game(stake="0.25"))
    assert r.net == {"alice": Decimal("-0.50"), "bob": Decimal("1.00"), "carol": Decimal("-0.50")}
    # k = 1: with target 5 and the no-win deal, ... use the deal where D takes 5 tricks of 8.
    d = no_win_deal(0)
    r = run(game([d], stake="3"), {"target": 11})
    # bob reaches 11 at trick 11: alice 0 (short of 8), carol 0 (short of 3): k = 2 again
    assert r.net["bob"] == Decimal("12")
    assert sum(r.net.values()) == 0


def test_nets_keep_decimal_places_and_zero_has_no_sign():
    r = run(game(stake="0.00"))
    assert r.to_dict()["net"] == {"alice": "0.00", "bob": "0.00", "carol": "0.00"}
    r = run(game(stake="1.125"))
    assert r.to_dict()["net"] == {"alice": "-2.250", "bob": "4.500", "carol": "-2.250"}
    r = run(game(stake="123456789012345678901234567890.123456789"))
    assert money.total(r.net.values()) == 0 and r.to_dict()["net"]["bob"] == "493827156049382715604938271560.493827156"


def test_no_stake_no_net():
    r = run(game())
    assert r.net is None and r.to_dict()["net"] is None


# --- across games ---


def test_duplicate_game_identical_and_different():
    a = game()
    b = game(notes="edited")
    rs = run_many([a, a, b])
    assert codes(rs[0]) == []
    assert only(rs[1], "DUPLICATE_GAME").evidence["identical"] is True
    assert only(rs[2], "DUPLICATE_GAME").evidence["identical"] is False


def test_duplicate_game_counts_invalid_records_with_an_id():
    bad = game()
    bad["deals"][0]["tricks"][0]["cards"][0] = "XX"
    rs = run_many([bad, game()])
    assert rs[0].status == "invalid" and rs[0].id == "t-1"
    assert "DUPLICATE_GAME" in codes(rs[1])


def _series(seq: int, dealer: int, gid: str, **kw):
    return game([base_deal(dealer)], id=gid, series={"id": "fri", "seq": seq}, **kw)


def test_dealer_succession():
    # game 1: alice deals, bob (L) wins; alice and carol tie on 0 tricks, both count as loser.
    g1 = _series(1, 0, "s1")
    assert codes(run_many([g1, _series(2, 1, "s2")])[1]) == []  # bob, the winner
    assert codes(run_many([g1, _series(2, 2, "s2")])[1]) == []  # carol, a loser
    rs = run_many([g1, _series(2, 0, "s2", rules={"next_dealer": "winner"})])
    f = only(rs[1], "DEALER_SUCCESSION")
    assert (f.deal, f.player, f.evidence["allowed"]) == (1, "alice", ["bob"])
    rs = run_many([g1, _series(2, 1, "s2", rules={"next_dealer": "loser"})])
    assert only(rs[1], "DEALER_SUCCESSION").player == "bob"
    assert codes(run_many([g1, _series(2, 1, "s2", rules={"next_dealer": "free"})])[1]) == []


def test_series_gap_and_near_miss():
    """Places missing between two games of the input: a warning on the game after them; no dealer
    is judged across the gap, and no money is disputed for it."""
    g1, g2 = _series(1, 0, "s1"), _series(2, 0, "s2")
    g4 = _series(4, 0, "s4", rules={"next_dealer": "winner"})  # dealt by someone no game 3 could allow
    rs = run_many([g1, g2, g4])
    f = only(rs[2], "SERIES_GAP")
    assert (f.severity, f.evidence) == ("warning", {"series": ["fri", 4], "missing": [3, 3]})
    assert f.message.startswith("game 3 of series fri is not in the input, which holds games 2 and 4")
    assert codes(rs[2]) == ["SERIES_GAP"] and rs[2].disputes == [] and codes(rs[0]) == codes(rs[1]) == []
    rs = run_many([g4, g1])  # input order does not matter; games 2-3 are missing
    assert only(rs[0], "SERIES_GAP").evidence["missing"] == [2, 3]
    unreadable = {"id": "s3", "series": {"id": "fri", "seq": 3}}  # an invalid record holds no place
    assert "SERIES_GAP" in codes(run_many([g1, g2, unreadable, g4])[3])
    # The near misses: places 1-4 all held; a series whose first game here is its second; another series.
    assert "SERIES_GAP" not in codes(run_many([g1, g2, _series(3, 1, "s3"), g4])[3])
    assert codes(run_many([g2, _series(3, 1, "s3")])[1]) == []
    assert codes(run_many([g1, _series(3, 1, "sat-3") | {"series": {"id": "sat", "seq": 3}}])[1]) == []


def test_dealer_succession_out_of_order_and_present_once():
    g1 = _series(1, 0, "s1")
    g2 = _series(2, 0, "s2", rules={"next_dealer": "winner"})
    rs = run_many([g2, g1])
    assert [r.id for r in rs] == ["s2", "s1"]
    assert "DEALER_SUCCESSION" in codes(rs[0])
    rs = run_many([g1, g2, g1])  # game 1 again: a repeat takes part in nothing, the check stands
    assert "DEALER_SUCCESSION" in codes(rs[1]) and codes(rs[2]) == ["DUPLICATE_GAME"]
    other_first = _series(1, 0, "s1-other")  # two different games at place 1: neither is present once
    assert "DEALER_SUCCESSION" not in codes(run_many([g1, other_first, g2])[2])
    g1_unwon = game([base_deal(0, tricks=3)], id="s1", series={"id": "fri", "seq": 1})
    assert "DEALER_SUCCESSION" not in codes(run_many([g1_unwon, g2])[1])


# --- legal cards ---



def test_series_seq_shared_and_near_miss():
    """Two games at one place of a series: a warning on the later one, which names the first; the
    succession into and out of that place goes unchecked, and no money is disputed for it."""
    g1, g1_other = _series(1, 0, "s1"), _series(1, 0, "s1-other")
    g2 = _series(2, 0, "s2", rules={"next_dealer": "winner"})  # dealt by someone game 1's result does not allow
    rs = run_many([g1, g1_other, g2])
    f = only(rs[1], "SERIES_SEQ_SHARED")
    assert (f.severity, f.evidence) == ("warning", {"series": ["fri", 1], "first_game": "s1", "first": "test.jsonl:1"})
    assert "game s1-other is game 1 of series fri, as game s1 (read at test.jsonl:1)" in f.message
    assert codes(rs[0]) == [] and codes(rs[2]) == [] and rs[1].disputes == [] and rs[1].status == "won"
    rs = run_many([g1, _series(1, 1, "s1-third"), g1_other])  # three at one place: each after the first says so
    assert [only(r, "SERIES_SEQ_SHARED").evidence["first_game"] for r in rs[1:]] == ["s1", "s1"]
    # The near misses: a repeat of the same id is not present at all, and places 1 and 2 are two places.
    assert codes(run_many([g1, g1])[1]) == ["DUPLICATE_GAME"]
    assert "SERIES_SEQ_SHARED" not in codes(run_many([g1, g2])[1])
    assert codes(run_many([g1, _series(1, 0, "s1-elsewhere") | {"series": {"id": "sat", "seq": 1}}])[1]) == []


def test_legal_cards_and_position():
    rec = short(1)
    pos = position(rec, 1, 2)
    assert pos.to_move == 1 and pos.tricks == [0, 1, 0]
    carol = pos.hands[2]
    assert C.names(legal_cards(carol, C.SUIT_OF[C.card("5S")])) == ["6S", "5S", "2S"]
    assert len(legal_cards(carol, C.SUIT_OF[C.card("AH")])) == 15
    assert len(legal_cards(carol, None)) == 15


@pytest.mark.parametrize("quota,expect", [("8-5-3", (8, 5, 3)), ("9-5-2", (9, 5, 2))])
def test_quota_option(quota, expect):
    r = run(game(rules={"quota": quota}))
    assert r.deals[0].quotas == expect
    assert [r.deals[0].outcome(s) for s in range(3)] == [0 - expect[0], 12 - expect[1], 0 - expect[2]]



def test_position_at_is_the_table_before_a_trick_and_none_after_the_end():
    from builders import game_data
    from foreman_cli.engine import Position, position_at, replay
    g = game_data(game())
    pos = position_at(g, 1, 2)
    assert isinstance(pos, Position) and (pos.deal, pos.trick) == (1, 2) and sum(pos.tricks) == 1
    assert sum(len(h) for h in pos.hands) == 45  # 48 cards less the first trick
    won_in = replay(g).deals_played
    assert position_at(g, won_in + 1, 1) is None  # the game was over by then


def test_a_result_is_frozen_and_its_status_an_enum():
    import dataclasses
    from builders import game_data
    from foreman_cli.engine import replay
    from foreman_cli.results import Status
    r = replay(game_data(game()))
    assert r.status is Status.WON and r.status == "won" and r.to_dict()["status"] == "won"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.winner = "somebody else"
