"""Hand-made records for the tests: a deal whose every card is known, and ways to bend it."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from foreman_cli import audit, records
from foreman_cli.cards import CARD_OF
from foreman_cli.cards import RANKS as CARD_RANKS
from foreman_cli.convert import write_game
from foreman_cli.engine import position_at
from foreman_cli.reader import RawRecord

PLAYERS = ["alice", "bob", "carol"]
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def suit(s: str, lo: str = "2", hi: str = "A") -> list[str]:
    """The cards of one suit from rank lo to rank hi, ascending."""
    return [r + s for r in RANKS[RANKS.index(lo): RANKS.index(hi) + 1]]


def _roles(dealer: int) -> tuple[str, str, str]:
    d = PLAYERS[dealer]
    return d, PLAYERS[(dealer + 1) % 3], PLAYERS[(dealer + 2) % 3]


def base_deal(dealer: int = 0, tricks: int | None = None) -> dict[str, Any]:
    """A legal deal in which L leads hearts and takes 12 tricks in a row.

    L holds the 13 hearts and 2S 3S 4S; R the 13 diamonds and 5S 6S 7S; D the 13 clubs and
    8S 9S 10S; the kitty is JS QS KS AS. Passes: L gives 2S, R returns 7S (her highest spade);
    R gives 2D, D has no diamond and returns 2C; D gives 2D, L has no diamond and returns 2H.
    D discards 8S 9S 10S 2H and takes the four top spades.
    """
    D, L, R = _roles(dealer)
    hearts_down = list(reversed(suit("H", "3", "A")))  # AH .. 3H, twelve of them
    r_plays = ["2C"] + suit("D", "3", "K")  # 2C, 3D .. KD
    d_plays = suit("C", "3", "A")  # 3C .. AC
    all_tricks = [{"leader": L, "cards": [hearts_down[i], r_plays[i], d_plays[i]]} for i in range(12)]
    return {
        "dealer": D,
        "hands": {
            D: suit("C") + ["8S", "9S", "10S"],
            L: suit("H") + ["2S", "3S", "4S"],
            R: suit("D") + ["5S", "6S", "7S"],
        },
        "kitty": ["JS", "QS", "KS", "AS"],
        "passes": [
            {"from": L, "to": R, "card": "2S", "returned": "7S"},
            {"from": R, "to": D, "card": "2D", "returned": "2C"},
            {"from": D, "to": L, "card": "2D", "returned": "2H"},
        ],
        "discards": ["8S", "9S", "10S", "2H"],
        "tricks": all_tricks if tricks is None else all_tricks[:tricks],
    }


def no_win_deal(dealer: int = 0) -> dict[str, Any]:
    """The base deal played out over 16 tricks with nobody reaching 12 (L 11, D 5, R 0)."""
    D, L, R = _roles(dealer)
    deal = base_deal(dealer)
    hearts = list(reversed(suit("H", "4", "A")))  # AH .. 4H, eleven
    r_plays = ["2C"] + suit("D", "3", "Q")  # eleven
    d_plays = suit("C", "3", "K")  # eleven
    tricks = [{"leader": L, "cards": [hearts[i], r_plays[i], d_plays[i]]} for i in range(11)]
    tricks += [
        {"leader": L, "cards": ["3S", "6S", "AS"]},  # D wins
        {"leader": D, "cards": ["AC", "2D", "KD"]},
        {"leader": D, "cards": ["KS", "4S", "5S"]},
        {"leader": D, "cards": ["QS", "7S", "2S"]},
        {"leader": D, "cards": ["JS", "3H", "AD"]},
    ]
    deal["tricks"] = tricks
    return deal


def game(deals: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    """A whole record around some deals (default: the base deal, won by bob at trick 12)."""
    rec: dict[str, Any] = {"format": "foreman/1", "id": fields.pop("id", "t-1"), "players": list(PLAYERS),
                           "deals": deals if deals is not None else [base_deal()]}
    rec.update(fields)
    return rec


def clone(rec: dict[str, Any]) -> dict[str, Any]:
    """A deep copy to bend."""
    return copy.deepcopy(rec)


def run(rec: dict[str, Any] | str, overrides: dict[str, Any] | None = None):
    """Replay one record (dict or JSON text) as the validate command would."""
    text = rec if isinstance(rec, str) else json.dumps(rec)
    return audit.check_record(RawRecord("test.json", 1, text), overrides)


def run_many(recs: list[dict[str, Any]]):
    """Replay several records in order with the cross-game checks."""
    raws = [RawRecord("test.jsonl", i + 1, json.dumps(r)) for i, r in enumerate(recs)]
    return list(audit.audit_records(raws))


def codes(result) -> list[str]:
    """The finding codes of a result, in order."""
    return [f.code for f in result.findings]


def only(result, code: str):
    """The single finding with this code."""
    found = [f for f in result.findings if f.code == code]
    assert len(found) == 1, (code, [f.text() for f in result.findings])
    return found[0]


def game_data(rec: dict[str, Any]):
    """The decoded GameData of a record."""
    g = records.decode(json.dumps(rec))
    assert not isinstance(g, records.Invalid), g
    return g


def position(rec: dict[str, Any], deal: int, trick: int):
    """The table before a trick."""
    return position_at(game_data(rec), deal, trick)


def styled_notation(rec: dict, rnd: random.Random) -> str:
    """The record as a person might type it: trick numbers or not, leaders written or not, several
    tricks a line, following cards with or without their suit, hands in suit groups or not, comments."""
    lines = [line for line in write_game(rec).splitlines()]
    out = []
    pending: list[str] = []
    for line in lines:
        first = line.split(" ", 1)[0]
        if first.endswith(".") and first[:-1].isdigit():
            body = line.split(" ", 1)[1]
            if rnd.random() < 0.5:
                body = _with_suits(body)
            pending.append(body if rnd.random() < 0.5 else line)
            if rnd.random() < 0.6:
                out.append("; ".join(pending) + (" # tricks" if rnd.random() < 0.2 else ""))
                pending = []
            continue
        if pending:
            out.append("; ".join(pending))
            pending = []
        if first == "hand" and rnd.random() < 0.5:
            out.append(_grouped(line))
        else:
            out.append(line)
        if rnd.random() < 0.1:
            out.append("")
    if pending:
        out.append("; ".join(pending))
    return "\n".join(out) + "\n"


def _with_suits(body: str) -> str:
    """A trick's bare ranks written as full cards (a leader and an empty trick left as they are)."""
    words = body.split()
    lead = next((i for i, w in enumerate(words) if not w.endswith(":")), None)
    if lead is None or words[lead] == "-":
        return body
    suit = words[lead][-1]
    return " ".join(w + suit if i > lead and w.upper() in CARD_RANKS else w for i, w in enumerate(words))


def _grouped(line: str) -> str:
    """A `hand` line's cards in suit groups: S 10 7 H A ... (the dealt order kept)."""
    word, name, *cards = line.split()
    if any(c not in CARD_OF for c in cards):
        return line  # a broken record's card: left as written
    words, suit = [], None
    for c in cards:  # a suit letter each time the suit changes, so the cards keep their order
        if c[-1] != suit:
            suit = c[-1]
            words.append(suit)
        words.append(c[:-1])
    return f"{word} {name} " + " ".join(words)
