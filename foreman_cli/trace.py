"""One game's replay as a list of events, for the replay view, `replay --json` and the HTML report."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from . import engine, records
from .audit import audit_paths
from .board import deal_over, legal_cards
from .cards import CANONICAL, CARD_OF, SUIT_NAMES, SUIT_OF, names
from .errors import UsageError
from .events import ClaimJudged, Event, FindingMade, GameEnded, PassMade, PositionReached, Recorder
from .findings import CROSS_GAME, repeat_mark
from .results import GameResult
from .words import GamesRead, plural


@dataclass(slots=True)
class Trace:
    """A replayed game: its result, every event in order, and the table at a stopping point."""

    data: records.GameData
    result: GameResult
    events: list[Event]
    position: engine.Position | None = None
    position_trick: list[int] | None = None  # the cards recorded for the trick stopped before
    # The other records of this game the input holds (in doubt: not the same record), each where it is and its
    # DUPLICATE_GAME: the one shown is the first, and which one the table played is in doubt.
    doubts: tuple[str, ...] = ()


def find_game(paths: list[str], game_id: str | None,
              overrides: dict[str, Any] | None = None) -> tuple[GameResult, tuple[str, ...]]:
    """The audited game with `game_id` (its first copy), or the only game in the input, and the
    other records of it in doubt (Trace.doubts).

    One audit pass over the whole input, so the game carries the findings that need the other
    games (a repeat, dealer succession), and standard input is read once.
    """
    found: GameResult | None = None
    games = GamesRead()
    differing: list[tuple[str | None, str]] = []  # each repeat in doubt: its id, and where it is and why
    for r in audit_paths(paths, overrides):
        if r.repeat:  # a copy of a game read before is that game, not another one
            if r.in_doubt:
                differing.append((r.id, f"{r.source}: {repeat_mark(r.findings).message}"))
            continue
        games.add(r.id)
        if found is None and (game_id is None or r.id == game_id):
            found = r
    if game_id is None and games.count > 1:
        raise UsageError("the input holds more than one game: choose one with --game ID", hint=games.hint())
    if found is None:
        raise UsageError(f"no game {game_id!r} in the input" if game_id else "the input holds no game",
                         hint=games.hint())
    return found, tuple(told for game, told in differing if game == found.id)


def trace_game(paths: list[str], game_id: str | None = None, overrides: dict[str, Any] | None = None,
               deal: int | None = None, trick: int | None = None) -> Trace:
    """Replay one game with every event recorded; with deal and trick, stop just before that trick."""
    audited, doubts = find_game(paths, game_id, overrides)
    data = audited.data
    if audited.status == "invalid" or data is None:
        raise UsageError(f"{audited.source}: game cannot be replayed: {audited.findings[0].message}",
                         hint="run 'foreman validate' on it for every problem")
    if trick is not None and deal is None:
        deal = 1  # --trick alone: in the first deal
    if deal is not None and not 1 <= deal <= len(data.deals):
        raise UsageError(f"--deal {deal}: the game has {plural(len(data.deals), 'deal')}")
    rec = Recorder()
    full = engine.replay(data, source=audited.source, trace=rec)
    across = tuple(f for f in audited.findings if f.code in CROSS_GAME)
    full = replace(full, findings=(*full.findings, *across))
    for f in across:
        rec.visit(FindingMade(f))
    rec.visit(_result_event(full))
    events = rec.events
    if deal is None:
        return Trace(data, full, events, doubts=doubts)
    if trick is None:
        # That deal only: its events (findings of the deal included), then the game's result.
        return Trace(data, full, [e for e in events if getattr(e, "deal", None) == deal or e.kind == "result"],
                     doubts=doubts)
    stop = trick
    recorded = len(data.deals[deal - 1].tricks)
    if stop > recorded + 1:
        raise UsageError(f"--trick {stop}: deal {deal} has {plural(recorded, 'trick')} recorded; "
                         f"give 1 to {recorded + 1} (the last is the position after them)")
    part = Recorder()
    pos = engine.position_at(data, deal, stop, source=audited.source, trace=part)
    if pos is None:
        raise UsageError(f"--deal {deal} --trick {stop}: the game ended before that point")
    tricks = data.deals[deal - 1].tricks
    cards = [CARD_OF[c] for c in tricks[stop - 1].cards] if stop <= len(tricks) else None
    trace = Trace(data, full, part.events, pos, cards, doubts)
    trace.events.append(_position_event(trace))
    # A claim made at this point is what the table did next: shown with the hands it was judged from.
    trace.events += [e for e in events if isinstance(e, ClaimJudged) and (e.deal, e.trick) == (deal, stop)]
    return trace


def play_over(trace: Trace) -> bool:
    """At the stopping point the deal has ended (the game won, or its 16 tricks played): nobody is to play."""
    pos = trace.position
    return deal_over(pos.tricks, trace.data.rules.target, pos.trick - 1)


def _position_event(trace: Trace) -> PositionReached:
    """The table at the stopping point, for `replay --json`: tallies, hands, and each one's legal cards."""
    pos = trace.position
    over = play_over(trace)
    led = SUIT_OF[trace.position_trick[0]] if trace.position_trick else None
    legal = [[] if pos.unknown[s] or over else legal_cards(pos.hands[s], None if s == pos.to_move else led)
             for s in range(3)]
    return PositionReached(pos.deal, pos.trick, pos.to_move, tuple(pos.tricks), tuple(tuple(h) for h in pos.hands),
                           tuple(tuple(x) for x in legal),
                           tuple(trace.position_trick) if trace.position_trick else None,
                           pos.unknown if any(pos.unknown) else None, over)


def _result_event(result: GameResult) -> GameEnded:
    data = result.to_dict()
    last = result.last_deal
    data.update(event="result", players=list(result.players),
             quota_outcomes=({p: last.outcome(s) for s, p in enumerate(result.players)} if last else None),
             short_of_quota=result.short_of_quota,
             payments=[{"from": a, "to": b, "amount": str(v)} for a, b, v in result.payments])
    return GameEnded(data)


def follower_legal(trace: Trace) -> list[tuple[str, list[str], list[str], int]]:
    """At a stopping point: each player in turn, the cards he held (as far as the record shows them),
    those legal on the recorded lead (none when his hand is not wholly known or the deal has ended), and how many are not shown."""
    pos = trace.position
    players = trace.data.players
    out = []
    led = SUIT_OF[trace.position_trick[0]] if trace.position_trick else None
    over = play_over(trace)
    for j in range(3):
        seat = (pos.to_move + j) % 3
        hand = pos.hands[seat]
        legal = [] if pos.unknown[seat] or over else legal_cards(hand, None if j == 0 else led)
        out.append((players[seat], names(hand), names(legal), pos.unknown[seat]))
    return out


def pass_proof(ev: PassMade, rule: str, players: tuple[str, ...]) -> str:
    """Why a pass's return was or was not allowed, from what the receiver held in the suit (every view)."""
    if ev.receiver_suit_before is None:
        return f"{players[ev.receiver]}'s hand is not recorded"
    before, word, to = names(ev.receiver_suit_before), SUIT_NAMES[SUIT_OF[ev.card]], players[ev.receiver]
    if not before:
        return f"{to} held no {word}, so any card may come back"
    held = f"{to} held {' '.join(before)} in {word}s"
    if rule == "highest":
        return held + (f": the highest, {before[0]}, comes back" if CANONICAL[ev.returned] == before[0] else
                       f": the highest, {before[0]}, should have come back")
    return held
