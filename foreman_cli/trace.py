"""One game's replay as a list of events, for the replay view, `replay --json` and the HTML report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import engine, records
from .audit import audit_paths, check_record
from .cards import CARD_OF, SUIT_OF, names
from .errors import UsageError
from .reader import RawRecord, read_records
from .results import GameResult


CROSS_GAME_CODES = ("DUPLICATE_GAME", "DEALER_SUCCESSION")


@dataclass(slots=True)
class Trace:
    """A replayed game: its result, every event in order, and the table at a stopping point."""

    data: records.GameData
    result: GameResult
    events: list[dict[str, Any]]
    position: engine.Position | None = None
    position_trick: list[int] | None = None  # the cards recorded for the trick stopped before


def find_record(paths: list[str], game_id: str | None) -> RawRecord:
    """The raw record of one game: the one with `game_id`, or the only one in the input."""
    found: RawRecord | None = None
    count = 0
    for raw in read_records(paths):
        count += 1
        if game_id is None:
            if count > 1:
                raise UsageError("the input holds more than one game: choose one with --game ID",
                                 hint="'foreman validate --json PATH' lists the ids")
            found = raw
        elif raw.text is not None and game_id in raw.text:
            data = records.decode(raw.text)
            gid = data.id if not isinstance(data, records.Invalid) else data.id
            if gid == game_id:
                return raw
    if found is None:
        raise UsageError(f"no game {game_id!r} in the input" if game_id else "the input holds no game")
    return found


def trace_game(paths: list[str], game_id: str | None = None, overrides: dict[str, Any] | None = None,
               deal: int | None = None, trick: int | None = None) -> Trace:
    """Replay one game with every event recorded; with deal and trick, stop just before that trick."""
    raw = find_record(paths, game_id)
    data = records.decode(raw.text, overrides) if raw.text is not None else None
    if data is None or isinstance(data, records.Invalid):
        res = check_record(raw, overrides)
        raise UsageError(f"{raw.where}: game cannot be replayed: {res.findings[0].message}",
                         hint="run 'foreman validate' on it for every problem")
    if trick is not None and deal is None:
        deal = 1
    if deal is not None and not 1 <= deal <= len(data.deals):
        raise UsageError(f"--deal {deal}: the game has {len(data.deals)} deal(s)")
    events: list[dict[str, Any]] = []
    full = engine.replay(data, source=raw.where, trace=events)
    # Findings that need the other games (a repeat, dealer succession) come from a full audit.
    for other in audit_paths(paths, overrides):
        if other.source == raw.where:
            for f in other.findings:
                if f.code in CROSS_GAME_CODES:
                    full.findings.append(f)
                    events.append({"event": "finding", **f.to_dict()})
            break
    events.append(_result_event(full))
    if deal is None:
        return Trace(data, full, events)
    stop = trick or 1
    part: list[dict[str, Any]] = []
    pos = engine.replay(data, source=raw.where, stop_at=(deal, stop), trace=part)
    if not isinstance(pos, engine.Position):
        raise UsageError(f"--deal {deal} --trick {stop}: the game ended before that point")
    tricks = data.deals[deal - 1].tricks
    recorded = [CARD_OF[c] for c in tricks[stop - 1].cards] if stop <= len(tricks) else None
    return Trace(data, full, part, pos, recorded)


def _result_event(r: GameResult) -> dict[str, Any]:
    d = r.to_dict()
    last = r.last_deal
    d.update(event="result", players=list(r.players),
             quota_outcomes=({p: last.outcome(s) for s, p in enumerate(r.players)} if last else None),
             short_of_quota=r.short_of_quota,
             payments=[{"from": a, "to": b, "amount": str(v)} for a, b, v in r.payments])
    return d


def follower_legal(t: Trace) -> list[tuple[str, list[str], list[str]]]:
    """At a stopping point: each player in turn, the cards he held, and those legal on the recorded lead."""
    pos = t.position
    P = t.data.players
    out = []
    led = SUIT_OF[t.position_trick[0]] if t.position_trick else None
    for j in range(3):
        s = (pos.to_move + j) % 3
        hand = pos.hands[s]
        legal = engine.legal_cards(hand, None if j == 0 else led)
        out.append((P[s], names(hand), names(legal)))
    return out
