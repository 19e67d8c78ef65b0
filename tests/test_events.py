"""The replay's typed events and their visitor: the traced and the untraced replay agree, and a
replay without a visitor builds no events."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foreman_cli import engine, events, records
from foreman_cli.generate import INJECTABLE, generate
from foreman_cli.rules import HouseRules


def _decoded(seed: int, inject: str | None) -> list[records.GameData]:
    rules = HouseRules(deal_rotation="left")
    out = [records.decode(json.dumps(rec)) for rec, _ in generate(3, seed, inject=inject, rules=rules, max_deals=4,
                                                                  claims=0.2)]
    return [g for g in out if isinstance(g, records.GameData)]


def _same(a, b) -> None:
    assert a.to_dict() == b.to_dict()
    assert [(d.tricks, d.tricks_played, d.decided, d.winners) for d in a.deals] == \
        [(d.tricks, d.tricks_played, d.decided, d.winners) for d in b.deals]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), inject=st.sampled_from([None, *INJECTABLE]))
def test_the_traced_replay_gives_the_result_of_the_fast_one(seed, inject):
    # The traced replay takes the full path on every deal; the untraced one the compiled pass
    # where a deal is plain. Breaches included, they must give the same result.
    for g in _decoded(seed, inject):
        rec = events.Recorder()
        _same(engine.replay(g, trace=rec), engine.replay(g))
        assert rec.events and all(hasattr(e, "to_dict") for e in rec.events)


class _Counter(events.Visitor):
    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def on_trick(self, e: events.TrickWon) -> None:
        self.seen["trick"] = self.seen.get("trick", 0) + 1

    def on_finding(self, e: events.FindingMade) -> None:
        self.seen[e.finding.code] = self.seen.get(e.finding.code, 0) + 1


def test_a_visitor_gets_each_kind_of_event_at_its_handler():
    g, = _decoded(7, "REVOKE")[:1]
    v = _Counter()
    res = engine.replay(g, trace=v)
    assert v.seen["trick"] == sum(len(d.tricks) for d in g.deals[:res.deals_played or None])
    assert v.seen["REVOKE"] == 1


def test_a_replay_without_a_visitor_builds_no_events(monkeypatch):
    g, = _decoded(7, "REVOKE")[:1]
    for name in ("DealStarted", "PassMade", "KittyExchanged", "CardPlayed", "TrickWon", "FindingMade", "ClaimJudged"):
        monkeypatch.setattr(events, name, lambda *a, **k: pytest.fail("an event was built"))
    assert engine.replay(g).findings  # the breach is found all the same
