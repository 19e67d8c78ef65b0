"""The scoreboard of `foreman record`: whose turn it is, what a kept line changed, the state of play, in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import money
from .board import legal_cards
from .cards import CANONICAL, SUIT_NAMES, SUITS, parse_token, token_table
from .claims import NOT_RECORDED
from .findings import ClaimMismatch, Revoke, Unfinished
from .results import DealResult, GameResult

TRICKS = 16

HELP = """Type notation, one line at a time:
  game ID / players A B C / stake 1.00 GBP / series ID N / rules quota=9-5-2 / note TEXT
  deal [DEALER]          a new deal (Enter takes the dealer due)
  7S A 9                 a trick's cards in play order from the leader (or one card at a time)
  claim NAME contested|accepted ["STATEMENT"]
  left NAME CARDS / NAME CARDS / NAME CARDS     what each still held when play stopped
  pass GIVER RECEIVER GIVEN RETURNED / discard CARDS / kitty CARDS   as the players show them
Commands: undo (the last card or line), show (the game so far), help, quit.
Every line is on disk when the scorer answers it; run `foreman record FILE` again to go on."""


@dataclass(frozen=True, slots=True)
class Turn:
    """What the table is waiting for. `phase`: 'new-game' (a game line), 'header' (the game's
    lines, then its first deal), 'trick', 'after-deal' (what players show, then the next deal),
    'won' (the game is over), or 'broken' (the game's lines do not make a record: `problem`)."""

    phase: str
    deal: int = 0
    trick: int = 0
    to_play: str | None = None
    led: str | None = None  # the suit letter of the trick being typed
    dealer_due: str | None = None  # of the next deal (or the next game's first)
    unplayed: tuple[str, ...] = ()  # the deal's cards not yet played, the suit led first
    only_card: str | None = None  # the player's one legal card, when his hand is known
    problem: str | None = None

    def prompt(self) -> str:
        """The prompt's words."""
        if self.phase == "trick":
            return f"deal {self.deal} · trick {self.trick} · {self.to_play}"
        return {"new-game": "new game", "header": "game lines, then deal", "after-deal": f"deal {self.deal} over · left, passes, discards as shown",
                "won": "game over", "broken": "fix the game"}[self.phase]


def deal_over(res: GameResult, rec: dict[str, Any]) -> bool:
    """The last deal of the record is over: the target reached, 16 tricks, or a claim."""
    dr = res.deals[-1] if res.deals else None
    if dr is None or dr.number != len(rec["deals"]):
        return res.status == "won"
    return dr.decided or dr.tricks_played >= TRICKS or rec["deals"][-1].get("claim") is not None


def turn(state, partial: bool = False, position=None) -> Turn:
    """The turn for a game state (scorer.GameState), whose last trick is the one being typed when
    `partial`; `position` is the table before that trick (board.Position) when the replay gives it."""
    rec, res = state.record, state.result
    if not state.lines:
        return Turn("new-game")
    if res is None:
        if rec is not None and not rec.get("deals") and state.problem_line is None:
            return Turn("header")
        return Turn("broken", problem=state.problem)
    if not rec.get("deals"):
        return Turn("header")
    dn = len(rec["deals"])
    if res.status == "won":
        return Turn("won", deal=dn)
    if deal_over(res, rec) and not partial:
        return Turn("after-deal", deal=dn, dealer_due=next_dealer(res, rec))
    return _trick_turn(res, rec, partial, position)


def _trick_turn(res: GameResult, rec: dict[str, Any], partial: bool, position) -> Turn:
    players, dr, deal = res.players, res.deals[-1], rec["deals"][-1]
    table = token_table("seed" if rec.get("card_notation") == "seed" else "en")
    tricks = deal["tricks"]
    done = len(tricks) - partial
    if partial and tricks[-1]["leader"] in players:
        lead_seat, cards = players.index(tricks[-1]["leader"]), [parse_token(c, table) for c in tricks[-1]["cards"]]
    else:
        lead_seat, cards = (players.index(deal["dealer"]) + 1) % 3, []
        if done and done <= len(dr.winners) and dr.winners[done - 1] is not None:
            lead_seat = dr.winners[done - 1]
    led = cards[0] // 13 if cards and cards[0] is not None else None
    to_play = (lead_seat + len(cards)) % 3
    played = {parse_token(c, table) for t in tricks for c in t["cards"]}
    order = [led] + [s for s in range(4) if s != led] if led is not None else list(range(4))
    unplayed = tuple(CANONICAL[c] for s in order for c in range(13 * s + 12, 13 * s - 1, -1) if c not in played)
    only = None
    if position is not None and position.unknown[to_play] == 0:
        legal = legal_cards([c for c in position.hands[to_play] if c not in played], led)
        only = CANONICAL[legal[0]] if len(legal) == 1 else None
    return Turn("trick", deal=len(rec["deals"]), trick=done + 1, to_play=players[to_play],
                led=SUITS[led] if led is not None else None, unplayed=unplayed, only_card=only)


def next_dealer(res: GameResult, rec: dict[str, Any]) -> str | None:
    """The dealer of the next deal under `deal_rotation` 'left' (the last deal's L), else None."""
    if (res.rules or {}).get("deal_rotation", "left") != "left":
        return None
    dealer = rec["deals"][-1]["dealer"]
    return res.players[(res.players.index(dealer) + 1) % 3] if dealer in res.players else None


def first_dealer(res: GameResult) -> str | None:
    """Who may deal the next game of the series (its rule's first choice): the winner, or the loser
    under `next_dealer` 'loser'."""
    deciding = res.deciding
    if res.status != "won" or deciding is None:
        return None
    if (res.rules or {}).get("next_dealer") == "loser":
        others = [(deciding.tricks[s], p) for s, p in enumerate(res.players) if p != res.winner]
        return min(others)[1]
    return res.winner


def tallies(res: GameResult, dr: DealResult, after: int | None = None) -> str:
    """'alice 3 of 5 · bob 1 of 3 · carol 2 of 8': tricks taken and quota, by seat; `after`: as they
    stood after that trick (a line of several tricks tells each one's), else as the deal stands."""
    taken = dr.tricks if after is None else [dr.winners[:after].count(s) for s in range(3)]
    return " · ".join(f"{p} {taken[s]} of {dr.quotas[s]}" for s, p in enumerate(res.players))


def news(before_rec, before: GameResult | None, rec, res: GameResult | None, tricks: int) -> list[tuple[str, str]]:
    """What kept lines changed, as (kind, words): each new trick's winner and the tallies, a new
    deal, the end of a deal, a claim and its verdict, the game's winner and the money."""
    if res is None or not rec.get("deals"):
        return []
    dn, out = len(rec["deals"]), []
    dr = res.deals[-1] if res.deals else None
    if dr is None or dr.number != dn:
        return out
    if before_rec is None or len(before_rec.get("deals") or []) < dn:
        out.append(("deal", f"deal {dn}: {rec['deals'][-1]['dealer']} deals; "
                            f"{res.players[(dr.dealer + 1) % 3]} leads"))
    out += _trick_news(res, dr, rec["deals"][-1]["tricks"], tricks)
    out += _claim_news(before, dr, res.players)
    was_over = before is not None and before_rec.get("deals") and len(before_rec["deals"]) == dn \
        and deal_over(before, before_rec)
    if res.status == "won" and (before is None or before.status != "won"):
        out.append(("game", game_words(res)))
    elif deal_over(res, rec) and not was_over:
        nxt = next_dealer(res, rec)
        out.append(("deal", f"deal {dn} ends: nobody reached {res.rules['target'] if res.rules else 12}"
                            + (f"; {nxt} deals next" if nxt else "")))
    return out


def _trick_news(res: GameResult, dr: DealResult, tricks: list[dict[str, Any]], added: int) -> list[tuple[str, str]]:
    out = []
    for k in range(len(tricks) - added + 1, len(tricks) + 1):
        trick, win = tricks[k - 1], dr.winners[k - 1] if k - 1 < len(dr.winners) else None
        if win is None or trick["leader"] not in res.players:
            out.append(("trick", f"trick {k}: kept"))
            continue
        at = (win - res.players.index(trick["leader"])) % 3
        card = trick["cards"][at] if at < len(trick["cards"]) else "?"
        out.append(("trick", f"trick {k}: {res.players[win]} wins with {card} · {tallies(res, dr, after=k)}"))
    return out


def _claim_news(before: GameResult | None, dr: DealResult, players: tuple[str, ...]) -> list[tuple[str, str]]:
    claim = dr.claim
    if claim is None:
        return []
    old = before.deals[-1].claim if before is not None and before.deals and before.deals[-1].number == dr.number \
        else None
    if old is not None and old.holds == claim.holds and old.not_judged == claim.not_judged:
        return []
    who = f"claim by {players[claim.by]}: {claim.tricks} trick{'s' if claim.tricks != 1 else ''} credited"
    if claim.holds is None:
        verdict = f"not judged: {claim.not_judged}" + ("; a 'left' line lets foreman judge it"
                                                   if claim.not_judged == NOT_RECORDED else "")
    else:
        verdict = "it holds" if claim.holds else "it does not hold (see 'show')"
    return [("claim", f"{who}; {verdict}")]


def game_words(res: GameResult) -> str:
    """'bob wins the game: alice pays bob 2.00 GBP, carol pays bob 1.00 GBP'."""
    cur = f" {res.currency}" if res.currency else ""
    pays = ", ".join(f"{a} pays {b} {money.fmt(x)}{cur}" for a, b, x in res.payments)
    return f"{res.winner} wins the game" + (f": {pays}" if pays else " (no stake: no money changes hands)")


def revoke_proved(revoke: Revoke, newest: str) -> str:
    """A revoke the card just entered proves, as the table would say it."""
    suit = SUIT_NAMES[SUITS.index(revoke.led)]
    return (f"{revoke.player} showed out of {suit}s at trick {revoke.trick} ({revoke.card}); "
            f"{newest} cannot be {revoke.player}'s unless trick {revoke.trick} was written wrong (REVOKE)")


def show(state, pending: list[str]) -> str:
    """The game so far: its header, each deal's tallies, the tricks of the deal being played."""
    rec, res = state.record, state.result
    if rec is None:
        return "no game yet" if not state.lines else f"the game's lines do not make a record: {state.problem}"
    out = [f"game {rec.get('id')}: {', '.join(rec.get('players') or [])}"]
    if res is not None:
        for dr in res.deals:
            out.append(f"deal {dr.number} ({res.players[dr.dealer]} deals): {tallies(res, dr)}")
        for f in res.findings:
            if res.status == "won" or not isinstance(f, (Unfinished, ClaimMismatch)):  # not yet: the game goes on
                out.append(f"  {f.text()}")
    deals = rec.get("deals") or []
    if deals:
        from .convert import trick_lines
        out += [f"  {line}" for line in trick_lines(rec, len(deals))]
    if pending:
        out.append(f"  being typed: {' '.join(pending)}")
    return "\n".join(out)
