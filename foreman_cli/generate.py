"""Seeded games played by simple bots, with an optional injected breach, as foreman/1(.1) records."""

from __future__ import annotations

import json

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, NamedTuple

from . import core, money
from .board import Board, legal_cards, pass_order, returns_allowed, trick_winner
from .cards import BIT, CANONICAL, RANK_OF, SUIT_OF
from .claims import covered
from .outcome import settle_game
from .errors import UsageError
from .findings import (INJECTABLE, CardNotHeld, ClaimDoubtful, ClaimMismatch, ClaimRefuted, DealDuplicate, DealSize,
                       DiscardCount, DiscardNotHeld, LeadOutOfTurn, PassNotHeld, PassSequence, PlayAfterEnd,
                       ReturnNotHeld, ReturnWrongCard, Revoke, TrickSize, WrongDealer)
from .results import DealResult
from .rules import HouseRules

if TYPE_CHECKING:
    import random

CLAIM_CODES = (ClaimRefuted.code, ClaimDoubtful.code)
CLAIM_HORIZON = 6  # bots claim only when this many tricks or fewer remain
NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "Björn", "olivia")
STAKES = ("0.50", "1.00", "2", "5.00", "0.25", "10.00", None)
CURRENCIES = ("GBP", "EUR", "USD")
START = datetime(2026, 1, 1, 19, 0, tzinfo=timezone.utc)


@dataclass(frozen=True, slots=True)
class Injected:
    """Where an injected breach was made: the place its finding must carry."""

    code: str
    deal: int | None = None
    trick: int | None = None
    pass_: int | None = None
    player: str | None = None
    card: str | None = None


class _DealPlayed(NamedTuple):
    """One deal as the bots played it: its record and result, the winner's seat if the deal won the
    game, and where an injected breach was put (all None when the breach found no place)."""

    record: dict | None
    result: DealResult | None
    winner: int | None
    where: Injected | None


class _Tricks(NamedTuple):
    """A deal's tricks until the target or a claim: tricks won by seat, the winner's seat, the claim."""

    tricks: list[dict]
    won: list[int]
    winner: int | None
    claim: dict | None
    where: Injected | None


class _Retry(Exception):
    """This game gave no chance for the injection asked for; play another."""


def generate(games: int, seed: int, inject: str | None = None, rules: HouseRules | None = None,
             max_deals: int = 20, stacked: float = 0.3, series_size: int = 0,
             players: list[str] | None = None, inject_trick: int = 1,
             prefix: str | None = None, claims: float = 0.0,
             stacked_by: str | None = None, play_only: float = 0.0,
             weak: str | None = None) -> Iterator[tuple[dict, Injected | None]]:
    """Yield `games` records (and where the injected breach is), reproducible from `seed`.

    `players` fixes the table (three names), or is the pool of regulars (more than three) from which
    each game, or each series, seats three; `weak` (one of them) plays a random legal card every
    time, where the others mostly play their highest; `inject_trick` makes a breach of play no earlier than that trick;
    `prefix` names the games and series (default 'gen-SEED'); `claims` is the chance that a deal
    ends with a claim once few tricks remain (sound ones, and some that fail); `stacked_by` makes
    one player a cheat: the stacked deals are his own, and the top cards go to him. `play_only` is
    the share of deals written as a table sees them (foreman/1.2): without hands, kitty, passes and
    discards, half of them with the cards each player held when play stopped (`left`); it draws
    from a generator of its own, so the games are the same whatever the share.
    """
    prefix = prefix or f"gen-{seed}"
    rules = rules or HouseRules()
    _check_options(inject, rules, max_deals, stacked, claims, players, stacked_by, play_only, weak)
    import random  # the generator's own: a validate run loads this module but never draws
    rng = random.Random(seed)
    prev: dict | None = None
    for i in range(games):
        series = None
        first_dealer = None
        if series_size:
            evening, seq = divmod(i, series_size)
            series = {"id": f"{prefix}-evening-{evening + 1}", "seq": seq + 1}
            if seq and prev is not None and prev["_winner"] is not None:
                first_dealer = rng.choice([prev["_winner"], *prev["_losers"]])
        table = players
        if players is not None and len(players) > 3:
            table = rng.sample(players, 3)
        if prev is not None and series and series["seq"] > 1:
            table = prev["players"]
        for attempt in range(200):
            try:
                rec, where = _game(rng, f"{prefix}-{i:06d}", i, rules, inject, max_deals,
                                   stacked if attempt < 20 else 1.0, table, first_dealer, inject_trick, claims,
                                   stacked_by, weak)
                break
            except _Retry:
                continue
        else:  # pragma: no cover - every injection finds its chance long before this
            raise UsageError(f"could not inject {inject} into game {i}")
        if series:
            rec["series"] = series
        prev = rec
        out = {k: v for k, v in rec.items() if not k.startswith("_")}
        if play_only:
            out = _seen_only(out, random.Random(f"{seed}-play-only-{i}"), play_only)
        yield out, where


def _check_options(inject: str | None, rules: HouseRules, max_deals: int, stacked: float, claims: float,
                   players: list[str] | None, stacked_by: str | None, play_only: float = 0.0,
                   weak: str | None = None) -> None:
    """Refuse options the generator cannot honour, saying which and why."""
    if inject is not None and inject not in INJECTABLE:
        raise UsageError(f"--inject {inject!r}: can inject one of {', '.join(INJECTABLE)}")
    if max_deals < 1:
        raise UsageError("--max-deals must be at least 1")
    if not 0.0 <= stacked <= 1.0:
        raise UsageError("--stacked is a probability, from 0 to 1")
    if not 0.0 <= claims <= 1.0:
        raise UsageError("--claims is a probability, from 0 to 1")
    if not 0.0 <= play_only <= 1.0:
        raise UsageError("--play-only is a share of deals, from 0 to 1")
    if players is not None and (problem := _names_problem(players)):
        raise UsageError(f"--players {','.join(players)!r}: {problem}")
    if stacked_by is not None and (players is None or len(players) != 3 or stacked_by not in players):
        raise UsageError(f"--stacked-by {stacked_by!r}: name one of three --players")
    if weak is not None and weak not in (players or NAMES):
        raise UsageError(f"--weak {weak!r}: name one of the players ({', '.join(players or NAMES)})")
    if inject == WrongDealer.code and rules.deal_rotation == "free":
        raise UsageError("--inject WRONG_DEALER needs deal_rotation=left: under 'free' any dealer is right")
    if inject == WrongDealer.code and rules.target < 7:
        # 16 tricks among three give someone at least 6: with a target of 6 or less every game
        # ends in its first deal and there is no second dealer to get wrong.
        raise UsageError("--inject WRONG_DEALER needs a second deal: use a target of 7 or more")
    if inject in CLAIM_CODES and rules.target < 6:
        # A claim is made with 6 tricks or fewer left: at a target of 5 or less too few deals last that long.
        raise UsageError(f"--inject {inject} needs deals that last past trick 10: use a target of 6 or more")


def _names_problem(players: list[str]) -> str | None:
    """Why --players cannot seat a game whose record foreman would read (None when it can)."""
    from .records import name_key, player_names_problem
    if len(players) < 3 or not all(players) or len({name_key(n) for n in players}) != len(players):
        return "three names or more, each different even with case and Unicode forms set aside"
    return player_names_problem(players)


def _seen_only(rec: dict, rng: random.Random, share: float) -> dict:
    """The record with a share of its deals as a table sees them, half of those with `left`."""
    chosen = {dn: rng.random() < 0.5 for dn in range(1, len(rec["deals"]) + 1) if rng.random() < share}
    return as_seen(rec, chosen) if chosen else rec


def as_seen(rec: dict, deals: dict[int, bool]) -> dict:
    """A copy of a full record with the deals numbered in `deals` as a table sees them (foreman/1.2):
    no hands, kitty, passes or discards; where the value is True, with `left`, the cards each player
    held when the deal's play stopped, as replayed."""
    from . import engine, records
    data = records.decode(json.dumps(rec))
    out = {**rec, "format": "foreman/1.2", "deals": [dict(d) for d in rec["deals"]]}
    for dn, with_left in deals.items():
        deal = out["deals"][dn - 1]
        pos = engine.position_at(data, dn, len(deal["tricks"]) + 1) if with_left else None
        for part in ("hands", "kitty", "passes", "discards"):
            del deal[part]
        if pos is not None:
            deal["left"] = {p: [CANONICAL[c] for c in pos.hands[s]] for s, p in enumerate(rec["players"])}
    return out


def _game(rng: random.Random, gid: str, index: int, rules: HouseRules, inject: str | None,
          max_deals: int, stacked: float, players: list[str] | None,
          first_dealer: str | None, inject_trick: int = 1, claims: float = 0.0,
          stacked_by: str | None = None, weak: str | None = None) -> tuple[dict, Injected | None]:
    players = list(players) if players else rng.sample(NAMES, 3)
    weak_seat = players.index(weak) if weak in players else None
    stake = rng.choice(STAKES)
    dealer = players.index(first_dealer) if first_dealer else rng.randrange(3)
    deals: list[dict] = []
    results: list[DealResult] = []
    winner = None
    where = None
    need_deals = 2 if inject == WrongDealer.code else 1
    for dn in range(1, max_deals + 1):
        inj = inject if (dn == need_deals and inject not in (PlayAfterEnd.code, ClaimMismatch.code)) else None
        if inject == WrongDealer.code and dn == 2:
            dealer = (dealer + 1) % 3  # the rotation would give (prev + 1); skip one seat more
            where = Injected(WrongDealer.code, deal=2, player=players[dealer])
            inj = None
        for _ in range(50):
            played = _deal(rng, players, dealer, dn, rules, inj, stacked if dn >= need_deals else 0.0, inject_trick,
                           claims, stacked_by, weak_seat)
            if dn < need_deals and played.winner is not None:
                continue  # a deal that ends the game too soon for the injection: deal again
            break
        else:
            raise _Retry
        if played.where is not None:
            where = played.where
        elif inj is not None:
            raise _Retry
        deals.append(played.record)
        results.append(played.result)
        if played.winner is not None:
            winner = played.winner
            break
        dealer = (dealer + 1) % 3
    if inject == PlayAfterEnd.code:
        if winner is None:
            raise _Retry
        last = deals[-1]
        leader = last["tricks"][-1]["leader"]
        # One trick more after the winning one; its cards are not checked.
        leader_seat = players.index(leader)
        left = [c for c in CANONICAL if c not in {x for t in last["tricks"] for x in t["cards"]}][:3]
        last["tricks"].append({"leader": players[leader_seat], "cards": left})
        where = Injected(PlayAfterEnd.code, deal=len(deals), trick=len(last["tricks"]))
    return _record(rng, gid, index, rules, inject, players, stake, deals, results[-1], winner, where)


def _record(rng: random.Random, gid: str, index: int, rules: HouseRules, inject: str | None, players: list[str],
            stake, deals: list[dict], ref: DealResult, winner: int | None, where) -> tuple[dict, Injected | None]:
    """A generated game as its record, with what the table wrote of its result."""
    rec: dict[str, Any] = {
        "format": "foreman/1.1" if any("claim" in d for d in deals) else "foreman/1", "id": gid, "players": players,
        "played_at": (START + timedelta(hours=index)).isoformat(),
    }
    overrides = {k: v for k, v in rules.as_dict().items() if v != getattr(HouseRules(), k)}
    if overrides:
        rec["rules"] = overrides
    if stake is not None:
        rec["stake"] = stake
        rec["currency"] = rng.choice(CURRENCIES)
    rec["deals"] = deals
    claimed: dict[str, Any] = {"winner": players[winner] if winner is not None else None,
                               "tricks": {p: ref.tricks[s] for s, p in enumerate(players)}}
    if winner is not None and stake is not None:
        _, pays = settle_game(tuple(players), winner, ref, money.amount(stake))
        claimed["payments"] = [{"from": a, "to": b, "amount": money.fmt(v)} for a, b, v in pays]
    if inject == ClaimMismatch.code:
        first = players[0]  # any player: his tricks written one off
        claimed["tricks"][first] += 1 if claimed["tricks"][first] < 16 else -1
        where = Injected(ClaimMismatch.code)
    rec["claimed"] = claimed
    rec["_winner"] = players[winner] if winner is not None else None
    if winner is not None:
        others = [(ref.tricks[s], p) for s, p in enumerate(players) if s != winner]
        fewest = min(n for n, _ in others)
        rec["_losers"] = [p for n, p in others if n == fewest]
    return rec, where


def _deal(rng: random.Random, players: list[str], dealer: int, dn: int, rules: HouseRules, inject: str | None,
          stacked: float, inject_trick: int = 1, claims: float = 0.0, stacked_by: str | None = None,
          weak: int | None = None) -> _DealPlayed:
    """Deal and play one deal."""
    left, right = (dealer + 1) % 3, (dealer + 2) % 3
    dealt, kitty, strong, where = _dealt(rng, players, dealer, dn, stacked, stacked_by, inject)
    hands = [list(h) for h in dealt]
    passes, where = _bot_passes(rng, players, dealer, dn, hands, kitty, rules, inject, where)
    if inject == ReturnWrongCard.code and where is None:
        return _DealPlayed(None, None, None, None)
    discards, where = _bot_kitty(players, dealer, dn, hands, kitty, rules, inject, where)
    play = _bot_play(rng, players, dn, hands, (strong, weak), rules, inject, inject_trick, claims, list(discards),
                     left, where)
    quotas = [0, 0, 0]
    quotas[dealer], quotas[left], quotas[right] = rules.quotas
    record = {"dealer": players[dealer], "hands": {players[s]: [CANONICAL[c] for c in dealt[s]] for s in range(3)},
              "kitty": [CANONICAL[c] for c in kitty], "passes": passes,
              "discards": [CANONICAL[c] for c in discards], "tricks": play.tricks}
    if play.claim is not None:
        record["claim"] = play.claim
    res = DealResult(dn, dealer, (quotas[0], quotas[1], quotas[2]), play.won, sum(play.won), play.winner is not None)
    return _DealPlayed(record, res, play.winner, play.where)


def _dealt(rng: random.Random, players: list[str], dealer: int, dn: int, stacked: float, stacked_by: str | None,
           inject: str | None):
    """The hands and kitty as dealt (stacked, or misdealt when asked), and the strong seat if stacked."""
    right = (dealer + 2) % 3
    deck = list(range(52))
    rng.shuffle(deck)
    strong = None
    if stacked_by is not None:
        if players[dealer] == stacked_by and rng.random() < stacked:
            strong = dealer  # the cheat stacks his own deal
    elif rng.random() < stacked:
        # A stacked deal: one player gets the 16 highest cards, so the game can end in this deal.
        strong = rng.randrange(3)
    if strong is not None:
        top = [card for card in deck if RANK_OF[card] >= 9]
        rest = [card for card in deck if RANK_OF[card] < 9]
        hands = [[], [], []]
        hands[strong] = top
        others = [s for s in range(3) if s != strong]
        hands[others[0]], hands[others[1]], kitty = rest[:16], rest[16:32], rest[32:36]
    else:
        hands = [deck[0:16], deck[16:32], deck[32:48]]
        kitty = deck[48:52]
    where = None
    dealt = [list(h) for h in hands]
    kitty = list(kitty)
    if inject == DealSize.code:
        card = dealt[dealer].pop()  # a misdeal: one of the dealer's cards lands in the kitty
        kitty.append(card)
        where = Injected(DealSize.code, deal=dn, player=players[dealer])
    elif inject == DealDuplicate.code:
        card = dealt[right][0]
        kitty[0] = card
        where = Injected(DealDuplicate.code, deal=dn, card=CANONICAL[card])
    return dealt, kitty, strong, where


def _bot_passes(rng: random.Random, players: list[str], dealer: int, dn: int, hands: list[list[int]], kitty: list[int],
                rules: HouseRules, inject: str | None, where):
    """The three passes as the bots make them (hands change in place), with a breach when asked."""
    passes = []
    for pn, (gv, rc) in enumerate(pass_order(dealer), 1):
        if inject == PassSequence.code and pn == 3:
            where = Injected(PassSequence.code, deal=dn, pass_=3, player=players[dealer])
            break
        before = list(hands[rc])
        given = _choose_give(rng, hands[gv], before, rules, inject == ReturnWrongCard.code and where is None)
        if inject == PassNotHeld.code and pn == 1:
            given = kitty[0]  # a card he never held
            where = Injected(PassNotHeld.code, deal=dn, pass_=1, player=players[gv], card=CANONICAL[given])
        else:
            hands[gv].remove(given)
        hands[rc].append(given)
        allowed = _allowed_returns(before, given, rules)
        if inject == ReturnNotHeld.code and pn == 1:
            returned = given
            where = Injected(ReturnNotHeld.code, deal=dn, pass_=1, player=players[rc], card=CANONICAL[returned])
        elif inject == ReturnWrongCard.code and where is None and allowed and len(set(before) - set(allowed)) > 0:
            returned = rng.choice(sorted(set(before) - set(allowed)))
            where = Injected(ReturnWrongCard.code, deal=dn, pass_=pn, player=players[rc], card=CANONICAL[returned])
        else:
            returned = rng.choice(allowed) if allowed else rng.choice(before)
        hands[rc].remove(returned)
        hands[gv].append(returned)
        passes.append({"from": players[gv], "to": players[rc], "card": CANONICAL[given],
                       "returned": CANONICAL[returned]})
    return passes, where


def _bot_kitty(players: list[str], dealer: int, dn: int, hands: list[list[int]], kitty: list[int], rules: HouseRules,
               inject: str | None, where):
    """The dealer takes the kitty and sets aside his lowest cards (hands[dealer] replaced), a breach when asked."""
    left = (dealer + 1) % 3
    own = sorted(hands[dealer], key=lambda c: (RANK_OF[c], c))
    n_disc = 3 if inject in (DiscardCount.code, DiscardNotHeld.code) else 4
    if rules.kitty == "swap":
        discards = own[:n_disc]
        hand = own[n_disc:] + kitty
    else:
        pool = sorted(own + kitty, key=lambda c: (RANK_OF[c], c))
        discards = pool[:n_disc]
        hand = pool[n_disc:]
    if inject == DiscardCount.code:
        where = Injected(DiscardCount.code, deal=dn, player=players[dealer])
    elif inject == DiscardNotHeld.code:
        if rules.kitty == "swap":
            discard = kitty[0]  # a kitty card: set aside all the same
            hand.remove(discard)
        else:
            discard = hands[left][0]  # a card he never had: removes nothing
        discards.append(discard)
        where = Injected(DiscardNotHeld.code, deal=dn, player=players[dealer], card=CANONICAL[discard])
    hands[dealer] = hand
    return discards, where


def _bot_play(rng: random.Random, players: list[str], dn: int, hands: list[list[int]],
              styles: tuple[int | None, int | None], rules: HouseRules, inject: str | None, inject_trick: int, claims: float, set_aside: list[int],
              leader: int, where) -> _Tricks:
    """The tricks until the target or a claim, and where an injected breach was put.
    `styles`: the seats of the strong hand (plays its highest) and of the weak player (plays at random)."""
    tricks = []
    won = [0, 0, 0]
    winner = None
    claim = None
    for tn in range(1, 17):
        if not any(hands):
            break
        if 16 - (tn - 1) <= CLAIM_HORIZON and (claims or inject in CLAIM_CODES) and where is None:
            claim, where = _claim(rng, players, hands, leader, won, tn, dn, rules, claims, inject, inject_trick)
            if claim is not None:
                claimer = players.index(claim["by"])
                won[claimer] += covered([len(h) for h in hands], won[claimer], tn - 1, rules.target)
                winner = claimer if won[claimer] >= rules.target else None
                break
        lead_seat = leader
        late = tn >= inject_trick
        if inject == LeadOutOfTurn.code and where is None and late:
            lead_seat = (leader + 1) % 3
            where = Injected(LeadOutOfTurn.code, deal=dn, trick=tn, player=players[lead_seat])
        cards, wseat, where = _bot_trick(rng, players, dn, tn, hands, lead_seat, styles, inject, late, set_aside, where)
        tricks.append({"leader": players[lead_seat], "cards": [CANONICAL[c] for c in cards]})
        won[wseat] += 1
        leader = wseat
        if won[wseat] == rules.target:
            winner = wseat
            break
    return _Tricks(tricks, won, winner, claim, where)


def _bot_trick(rng: random.Random, players: list[str], dn: int, tn: int, hands: list[list[int]], lead_seat: int,
               styles: tuple[int | None, int | None], inject: str | None, late: bool, set_aside: list[int], where):
    """One trick as the bots play it: (cards in play order, winning seat, injection place)."""
    cards: list[int] = []
    led = None
    for j in range(3):
        seat = (lead_seat + j) % 3
        if inject == TrickSize.code and where is None and j == 2 and late:
            where = Injected(TrickSize.code, deal=dn, trick=tn)
            break
        if not hands[seat]:
            break
        legal = legal_cards(hands[seat], led)
        card = _bot_card(rng, legal, seat, *styles)
        if inject == Revoke.code and where is None and j > 0 and late:
            off = [x for x in hands[seat] if SUIT_OF[x] != led]
            if off and len(legal) < len(set(hands[seat])):
                card = rng.choice(off)
                where = Injected(Revoke.code, deal=dn, trick=tn, player=players[seat], card=CANONICAL[card])
        held = True
        if inject == CardNotHeld.code and where is None and j == 0 and set_aside and late:
            card = set_aside[0]
            held = False
            where = Injected(CardNotHeld.code, deal=dn, trick=tn, player=players[seat], card=CANONICAL[card])
        if held:
            hands[seat].remove(card)
        if j == 0:
            led = SUIT_OF[card]
        cards.append(card)
    return cards, (trick_winner(lead_seat, cards) if cards else lead_seat), where


def _bot_card(rng: random.Random, legal: list[int], seat: int, strong: int | None, weak: int | None) -> int:
    """A bot's card: the strong hand plays its highest, the weak player any legal card, the others
    their highest half the time."""
    if seat == weak:
        return rng.choice(legal)
    if seat == strong or rng.random() < 0.5:
        return max(legal, key=lambda x: (RANK_OF[x], x))
    return rng.choice(legal)


def _claim(rng: random.Random, players: list[str], hands: list[list[int]], leader: int, won: list[int], tn: int,
           dn: int, rules: HouseRules, chance: float, inject: str | None,
           inject_trick: int) -> tuple[dict | None, Injected | None]:
    """Maybe end the deal with a claim before trick tn: the leader's, or a wrong one to inject."""
    board = Board([sum(BIT[c] for c in h) for h in hands], leader, won, tn - 1, rules.target)
    best = rules.claim_rule == "best-play"
    if inject in CLAIM_CODES:
        if tn < inject_trick:
            return None, None
        for x in (leader, (leader + 1) % 3, (leader + 2) % 3):
            covering = covered([len(h) for h in hands], won[x], tn - 1, rules.target)
            if covering and core.claim_line(board, x, covering, best) is not None:
                return ({"by": players[x], "accepted": inject == ClaimDoubtful.code},
                        Injected(inject, deal=dn, trick=tn, player=players[x]))
        return None, None
    if rng.random() >= chance:
        return None, None
    covering = covered([len(h) for h in hands], won[leader], tn - 1, rules.target)
    holds = core.claim_line(board, leader, covering, best) is None
    if not covering or (not holds and rng.random() < 0.5):
        return None, None
    # A sound claim is accepted most of the time; a wrong one now and then gets past the table.
    accepted = rng.random() < (0.8 if holds else 0.3)
    return {"by": players[leader], "accepted": accepted}, None


def _allowed_returns(before: list[int], received: int, rules: HouseRules) -> list[int]:
    """The cards the receiver may return for c; empty when any card he held will do."""
    allowed = returns_allowed(sum(BIT[x] for x in set(before)), received, rules.return_rule == "highest")
    return [x for x in range(52) if allowed & BIT[x]]  # by card number: the bots' choices depend on the order


def _choose_give(rng: random.Random, hand: list[int], receiver: list[int], rules: HouseRules,
                 for_wrong_return: bool) -> int:
    if for_wrong_return:
        # Give a card the receiver can return wrongly: he must hold a card the rule asks for.
        fits = [c for c in hand if _allowed_returns(receiver, c, rules)
                and set(receiver) - set(_allowed_returns(receiver, c, rules))]
        if fits:
            return rng.choice(fits)
    return rng.choice(hand)
