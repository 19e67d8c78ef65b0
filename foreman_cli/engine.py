"""The rules engine: replays one game per docs/game.md, collecting findings, tallies and nets."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from . import core, money
from .board import legal_mask
from .cards import BIT, BIT_OF, CANONICAL, CARD_OF, SUIT_MASK, SUIT_OF, SUITS, hand_cards, names
from . import findings as F
from .findings import Finding
from .records import GameData
from .results import DealResult, GameResult, Status
from .rules import QUOTAS

if TYPE_CHECKING:  # the events load only for a traced replay, the claims' judge for a claim
    from . import claims
    from . import events as ev

HAND_SIZE = 16
KITTY_SIZE = 4
DISCARDS = 4
TRICKS_PER_DEAL = 16
ROLE_WORDS = {0: "D", 1: "L", 2: "R"}


def legal_cards(hand: list[int], led_suit: int | None) -> list[int]:
    """Return the distinct cards of a hand that may be played on a lead of `led_suit`."""
    m = 0
    for c in hand:
        m |= BIT[c]
    return hand_cards(legal_mask(m, led_suit))


@dataclass(slots=True)
class Position:
    """The table just before a trick: each seat's hand, the leader due, and his legal cards."""

    deal: int
    trick: int
    hands: tuple[list[int], list[int], list[int]]
    tricks: list[int]
    to_move: int
    legal: list[int]


class _Hands:
    """Three multiset hands: a bitmask each, plus extra copies of cards dealt more than once."""

    __slots__ = ("m", "dup")

    def __init__(self) -> None:
        self.m = [0, 0, 0]
        self.dup: list[dict[int, int]] = [{}, {}, {}]

    def add(self, s: int, c: int) -> None:
        b = BIT[c]
        if self.m[s] & b:
            d = self.dup[s]
            d[c] = d.get(c, 0) + 1
        else:
            self.m[s] |= b

    def remove(self, s: int, c: int) -> bool:
        """Take one copy of c from seat s; False when he holds none."""
        b = BIT[c]
        if not self.m[s] & b:
            return False
        d = self.dup[s]
        if d and c in d:
            if d[c] == 1:
                del d[c]
            else:
                d[c] -= 1
        else:
            self.m[s] &= ~b
        return True

    def cards(self, s: int) -> list[int]:
        return hand_cards(self.m[s], self.dup[s])



def _check_trick(P, H: _Hands, add, trace, dn: int, tn: int, ld: int, leader_due: int,
                     cs: list[int]) -> int | None:
    """Check one trick, every rule, wording each breach; return the winning seat (None: no cards)."""
    m = H.m
    if ld != leader_due:
        add(F.LeadOutOfTurn(deal=dn, trick=tn, player=P[ld], expected=P[leader_due]))
    n = len(cs)
    if n != 3:
        add(F.TrickSize(deal=dn, trick=tn, cards=tuple(CANONICAL[c] for c in cs)))
        if n == 0:
            return None
    led = SUIT_OF[cs[0]]
    led_mask = SUIT_MASK[led]
    best = cs[0]
    w = ld
    for j in range(min(n, 3)):
        c = cs[j]
        p = (ld + j) % 3
        mp = m[p]
        if not H.remove(p, c):
            add(_not_held(P, H, dn, tn, p, c))
        if j:
            if SUIT_OF[c] == led:
                if c > best:
                    best = c
                    w = p
            elif mp & led_mask:
                add(_revoke(P, dn, tn, p, c, led, mp))
        if trace is not None:
            from . import events as ev
            trace.visit(ev.CardPlayed(dn, tn, P[p], CANONICAL[c], names(hand_cards(legal_mask(mp, led if j else None)))))
    return w


def wrong_return(before: int, c: int, x: int, highest: bool) -> bool:
    """Whether returning x for c breaks the return rule, given the receiver's hand before the pass.

    'highest': his highest card of the suit received, if he has one; 'higher': a card above the
    one received, if he has one. Without such a card any return is allowed (docs/game.md §4).
    """
    suit_cards = before & SUIT_MASK[SUIT_OF[c]]
    if highest:
        return bool(suit_cards) and x != suit_cards.bit_length() - 1
    above = suit_cards & ~((BIT[c] << 1) - 1)
    return bool(above) and not above & BIT[x]


def _incomplete(dn: int, tricks: int, target: int) -> F.Finding:
    return F.DealIncomplete(deal=dn, trick=tricks + 1, tricks=tricks, target=target)


def _not_held(P, H: _Hands, dn: int, tn: int, p: int, c: int) -> F.Finding:
    return F.CardNotHeld(deal=dn, trick=tn, player=P[p], card=CANONICAL[c], hand=tuple(names(H.cards(p))))


def _revoke(P, dn: int, tn: int, p: int, c: int, led: int, hand: int) -> F.Finding:
    return F.Revoke(deal=dn, trick=tn, player=P[p], card=CANONICAL[c], led=SUITS[led],
                    held=tuple(names(hand_cards(hand & SUIT_MASK[led]))))


def _pass_event(P, dn: int, pn: int, gv: int, rc: int, c: int, x: int, before: int) -> ev.PassMade:
    from . import events as ev
    return ev.PassMade(dn, pn, P[gv], P[rc], CANONICAL[c], CANONICAL[x],
                       names(hand_cards(before & SUIT_MASK[SUIT_OF[c]])))


FULL_DECK = (1 << 52) - 1


def _check_deal(P, H: _Hands, add, dn: int, hands_tok, kitty: list[int]) -> int:
    """Count a deal that is not 52 distinct cards in 16-16-16-4; set the hands; return the kitty mask."""
    m, dup = H.m, H.dup
    for s in range(3):
        hand = hands_tok[s]
        if len(hand) != HAND_SIZE:
            add(F.DealSize(deal=dn, player=P[s], count=len(hand), expected=HAND_SIZE))
        ms = 0
        for c in map(CARD_OF.__getitem__, hand):
            b = BIT[c]
            if ms & b:
                dup[s][c] = dup[s].get(c, 0) + 1
            else:
                ms |= b
        m[s] = ms
    if len(kitty) != KITTY_SIZE:
        add(F.DealSize(deal=dn, count=len(kitty), expected=KITTY_SIZE))
    kitty_mask = 0
    twice = 0
    for c in kitty:
        b = BIT[c]
        twice |= kitty_mask & b
        kitty_mask |= b
    seen = kitty_mask
    for s in range(3):
        twice |= (seen & m[s])
        seen |= m[s]
        for c in dup[s]:
            twice |= BIT[c]
    for c in hand_cards(twice):
        holders = tuple(P[s] for s in range(3) for x in hands_tok[s] if x == CANONICAL[c])
        add(F.DealDuplicate(deal=dn, card=CANONICAL[c], holders=holders, kitty=kitty.count(c)))
    return kitty_mask


def _wrong_return(P, rule: str, dn: int, pn: int, rc: int, c: int, x: int, suit_cards: int) -> F.Finding:
    if rule == "highest":
        allowed = [suit_cards.bit_length() - 1]
    else:
        allowed = hand_cards(suit_cards & ~((BIT[c] << 1) - 1))
    return F.ReturnWrongCard(deal=dn, pass_=pn, player=P[rc], card=CANONICAL[x], received=CANONICAL[c],
                             expected=tuple(names(allowed)), return_rule=rule)


@dataclass(slots=True)
class _Game:
    """What every phase of one game's replay reads: the players, the rules, where findings go."""

    P: tuple[str, ...]
    seat: dict[str, int]
    rules: Any
    add: Any  # appends a finding (and, traced, its event)
    trace: ev.Visitor | None
    highest_rule: bool
    swap: bool


def replay(g: GameData, source: str = "", trace: ev.Visitor | None = None, text: str | None = None,
           fingerprint: bytes | None = None) -> GameResult:
    """Replay a game and return its result, which keeps the game and, when given, its record's
    text and fingerprint (what the archive stores).

    With `trace` a visitor (events.Visitor), every event the replay meets (a deal started, a pass,
    the kitty, a card, a trick, a finding, a claim) is sent to it, in order.
    """
    return _run(g, source, trace, None, (text, fingerprint))


def position_at(g: GameData, deal: int, trick: int, source: str = "",
                trace: ev.Visitor | None = None) -> Position | None:
    """The table just before `trick` of `deal` (trick = recorded tricks + 1: after them), or None
    when the game ended before that point. `trace` gets the events up to it."""
    out = _run(g, source, trace, (deal, trick))
    return out if isinstance(out, Position) else None


def _run(g: GameData, source: str, trace: ev.Visitor | None,
         stop_at: tuple[int, int] | None, record: tuple[str | None, bytes | None] = (None, None)) -> GameResult | Position:
    P, rules = g.players, g.rules
    findings: list[Finding] = []
    add = findings.append
    if trace is not None:
        def add(f: Finding, _append=findings.append) -> None:  # noqa: F811 - traced variant
            _append(f)
            from . import events as ev
            trace.visit(ev.FindingMade(f))
    ctx = _Game(P, g.seat, rules, add, trace, rules.return_rule == "highest", rules.kitty == "swap")
    # The compiled pass for plain deals (none on the pure path); a traced replay or a stop at a
    # position needs every event.
    fast = core.clean_deal if trace is None and stop_at is None else None
    deal_results: list[DealResult] = []
    winner: int | None = None
    won_at: tuple[int, int] | None = None
    prev_dealer: int | None = None
    for dn, d in enumerate(g.deals, 1):
        if winner is not None:
            add(F.PlayAfterEnd(deal=dn, what="whole deal", winner=P[winner], won_at=won_at))
            continue
        D = g.seat[d.dealer]
        _deal_started(ctx, dn, d, D, prev_dealer)
        prev_dealer = D
        out = _fast_deal(ctx, fast, dn, d, D, len(g.deals)) if fast is not None and d.claim is None else None
        if out is None:
            out = _replay_deal(ctx, dn, d, D, stop_at, len(g.deals))
            if isinstance(out, Position):
                return out
        res, won_at_trick, by = out
        deal_results.append(res)
        if res.decided:
            winner, won_at = by, (dn, won_at_trick)
    beyond = len(findings) - MAX_FINDINGS
    if beyond > 0:  # a record wrong everywhere: its first findings make the case, the rest are counted
        del findings[MAX_FINDINGS:]
    result = _result(g, ctx.add, findings, source, deal_results, winner, record)
    return replace(result, findings_not_shown=beyond) if beyond > 0 else result


MAX_FINDINGS = 1000  # findings of the play kept for one game; beyond them the result counts the rest


def tallied(g: GameData, tallies, source: str = "", fingerprint: bytes | None = None,
            first_dealer: str | None = None, text: str | None = None) -> GameResult:
    """The result of a won game whose every deal the compiled lane tallied with nothing amiss
    (lane.py): `tallies` holds each deal's (dealer, (won0, won1, won2, winners, decided)). With
    `text` the result keeps it and the game (its deals as blocks), as the archive needs."""
    findings: list[Finding] = []
    deal_results = [DealResult(dn, D, _quotas(g.rules, D), [w0, w1, w2], len(ws), decided, ws, None)
                    for dn, (D, (w0, w1, w2, ws, decided)) in enumerate(tallies, 1)]
    winner = deal_results[-1].winners[-1]
    return _result(g, findings.append, findings, source, deal_results, winner, (text, fingerprint), first_dealer,
                   keep=text is not None)


def _quotas(rules, D: int) -> tuple[int, int, int]:
    return _QUOTAS_BY_SEAT[rules.quota][D]


def _by_seat(quotas: tuple[int, int, int], D: int) -> tuple[int, int, int]:
    q = [0, 0, 0]
    q[D], q[(D + 1) % 3], q[(D + 2) % 3] = quotas
    return q[0], q[1], q[2]


# Quotas by seat for each quota option and dealer: made once, asked for every deal.
_QUOTAS_BY_SEAT = {name: tuple(_by_seat(q, D) for D in range(3)) for name, q in QUOTAS.items()}


def _deal_started(ctx: _Game, dn: int, d, D: int, prev_dealer: int | None) -> None:
    """The deal's event, and the dealer checked against the rotation (WRONG_DEALER)."""
    P = ctx.P
    if ctx.trace is not None:
        L, R = (D + 1) % 3, (D + 2) % 3
        quotas = _quotas(ctx.rules, D)
        from . import events as ev
        ctx.trace.visit(ev.DealStarted(dn, P[D], {P[D]: "D", P[L]: "L", P[R]: "R"},
                                       {P[s]: quotas[s] for s in range(3)},
                                       {P[s]: names(map(CARD_OF.__getitem__, d.hands[P[s]])) for s in range(3)},
                                       names(map(CARD_OF.__getitem__, d.kitty))))
    if prev_dealer is not None and ctx.rules.deal_rotation == "left" and D != (prev_dealer + 1) % 3:
        exp = P[(prev_dealer + 1) % 3]
        ctx.add(F.WrongDealer(deal=dn, player=P[D], previous=P[prev_dealer], expected=exp))


def _fast_deal(ctx: _Game, fast, dn: int, d, D: int, n_deals: int):
    """A deal with nothing amiss, tallied in one compiled pass; None when it needs the full replay."""
    P, target = ctx.P, ctx.rules.target
    r = fast((d.hands[P[0]], d.hands[P[1]], d.hands[P[2]]), d.kitty, d.passes, d.discards, d.tricks, ctx.seat, D,
             ctx.highest_rule, target, CARD_OF, not ctx.swap)
    if r is None:
        return None
    won, winners, decided = [r[0], r[1], r[2]], r[3], r[4]
    if not decided and dn < n_deals and len(d.tricks) < TRICKS_PER_DEAL:
        ctx.add(_incomplete(dn, len(d.tricks), target))
    res = DealResult(dn, D, _quotas(ctx.rules, D), won, len(winners), decided, winners, None)
    return res, len(winners), (winners[-1] if decided else None)


def _replay_deal(ctx: _Game, dn: int, d, D: int, stop_at: tuple[int, int] | None, n_deals: int):
    """The full replay of one deal: every rule checked, every finding worded; or the Position asked for."""
    P, seat, target = ctx.P, ctx.seat, ctx.rules.target
    H = _Hands()
    kitty = list(map(CARD_OF.__getitem__, d.kitty))
    kitty_mask = _deal_hands(ctx, H, dn, (d.hands[P[0]], d.hands[P[1]], d.hands[P[2]]), d.kitty, kitty)
    _passes(ctx, H, dn, d, D)
    _kitty(ctx, H, dn, d, D, kitty, kitty_mask)
    play = _tricks(ctx, H, dn, d, D, stop_at)
    if isinstance(play, Position):
        return play
    won, winners, decided, leader_due, won_trick = play
    if stop_at is not None and stop_at[0] == dn:
        hands = (H.cards(0), H.cards(1), H.cards(2))
        return Position(dn, len(d.tricks) + 1, hands, list(won), leader_due, H.cards(leader_due))
    claim, claim_res, by = d.claim, None, (winners[-1] if decided else None)
    if claim is not None and decided:
        ctx.add(F.PlayAfterEnd(deal=dn, trick=len(d.tricks) + 1, what="claim", winner=P[by], won_at=(dn, won_trick)))
    elif claim is not None:
        claim_res = _claim(P, H, seat[claim.by], claim, leader_due, won, len(d.tricks), ctx.rules, dn, ctx.add,
                           ctx.trace)
        x, k = claim_res.by, claim_res.tricks
        won[x] += k
        if k and won[x] >= target:
            by, won_trick, decided = x, len(d.tricks) + k, True
    if not decided and claim is None and dn < n_deals and len(d.tricks) < TRICKS_PER_DEAL:
        ctx.add(_incomplete(dn, len(d.tricks), target))
    credited = claim_res.tricks if claim_res is not None else 0
    res = DealResult(dn, D, _quotas(ctx.rules, D), won, len(winners) - winners.count(None) + credited, decided,
                     winners, claim_res)
    return res, won_trick, by


def _deal_hands(ctx: _Game, H: _Hands, dn: int, hands_tok, kitty_tok, kitty: list[int]) -> int:
    """The hands as multisets; sizes and duplicates checked (DEAL_SIZE, DEAL_DUPLICATE). The kitty's mask."""
    m = H.m
    h0, h1, h2 = hands_tok
    # A sum of bits has fewer bits than cards when a card repeats (the repeat carries), so
    # sums of 16, 16, 16 and 4 cards whose union is all 52 bits can only be a deck dealt
    # once each. Anything else takes the careful count.
    m[0] = m0 = sum(map(BIT_OF.__getitem__, h0))
    m[1] = m1 = sum(map(BIT_OF.__getitem__, h1))
    m[2] = m2 = sum(map(BIT_OF.__getitem__, h2))
    kitty_mask = sum(map(BIT_OF.__getitem__, kitty_tok))
    if not (len(h0) == len(h1) == len(h2) == HAND_SIZE and len(kitty) == KITTY_SIZE
            and m0 | m1 | m2 | kitty_mask == FULL_DECK):
        kitty_mask = _check_deal(ctx.P, H, ctx.add, dn, hands_tok, kitty)
    return kitty_mask


def _passes(ctx: _Game, H: _Hands, dn: int, d, D: int) -> None:
    """The three passes, each checked against its giver and receiver and the return rule."""
    P, seat, rules, add, trace, highest_rule = ctx.P, ctx.seat, ctx.rules, ctx.add, ctx.trace, ctx.highest_rule
    CARD = CARD_OF
    m, dup = H.m, H.dup
    L, R = (D + 1) % 3, (D + 2) % 3
    # L gives to R, R to D, D to L; each pass is checked against its actual giver and receiver.
    expected = ((L, R), (R, D), (D, L))
    for i, ps in enumerate(d.passes):
        gv, rc, c, x = seat[ps.from_], seat[ps.to], CARD[ps.card], CARD[ps.returned]
        pn = i + 1
        if i >= 3:
            add(F.PassSequence(deal=dn, pass_=pn, player=P[gv], recorded=(P[gv], P[rc]), expected=None))
        elif (gv, rc) != expected[i]:
            eg, er = expected[i]
            add(F.PassSequence(deal=dn, pass_=pn, player=P[gv], recorded=(P[gv], P[rc]), expected=(P[eg], P[er]),
                               roles=(ROLE_WORDS[(eg - D) % 3], ROLE_WORDS[(er - D) % 3])))
        before = m[rc]
        bc, bx = BIT[c], BIT[x]
        if (m[gv] & bc and before & bx and not before & bc and not m[gv] & bx
                and not (dup[gv] or dup[rc]) and gv != rc):
            # The plain exchange: each side holds what it hands over and not what it gets.
            m[gv] ^= bc | bx
            m[rc] ^= bc | bx
            if wrong_return(before, c, x, highest_rule):
                add(_wrong_return(P, rules.return_rule, dn, pn, rc, c, x, before & SUIT_MASK[SUIT_OF[c]]))
            if trace is not None:
                trace.visit(_pass_event(P, dn, pn, gv, rc, c, x, before))
            continue
        before_dup = dict(dup[rc]) if dup[rc] else None
        if not H.remove(gv, c):
            add(F.PassNotHeld(deal=dn, pass_=pn, player=P[gv], card=CANONICAL[c], hand=tuple(names(H.cards(gv)))))
        H.add(rc, c)
        s = SUIT_OF[c]
        if not before & BIT[x]:
            add(F.ReturnNotHeld(deal=dn, pass_=pn, player=P[rc], card=CANONICAL[x], received=CANONICAL[c],
                                hand_before=tuple(names(hand_cards(before, before_dup)))))
        else:
            if wrong_return(before, c, x, highest_rule):
                add(_wrong_return(P, rules.return_rule, dn, pn, rc, c, x, before & SUIT_MASK[s]))
        H.remove(rc, x)
        H.add(gv, x)
        if trace is not None:
            trace.visit(_pass_event(P, dn, pn, gv, rc, c, x, before))
    for j in range(len(d.passes), 3):
        eg, er = expected[j]
        add(F.PassSequence(deal=dn, pass_=j + 1, player=P[eg], recorded=None, expected=(P[eg], P[er]),
                           roles=(ROLE_WORDS[(eg - D) % 3], ROLE_WORDS[(er - D) % 3])))



def _kitty(ctx: _Game, H: _Hands, dn: int, d, D: int, kitty: list[int], kitty_mask: int) -> None:
    """The dealer takes the kitty and sets aside his discards (his own cards first, under 'swap')."""
    P, rules, add, trace, swap = ctx.P, ctx.rules, ctx.add, ctx.trace, ctx.swap
    CARD = CARD_OF
    m, dup = H.m, H.dup
    nd = len(d.discards)
    if nd != DISCARDS:
        add(F.DiscardCount(deal=dn, player=P[D], count=nd, expected=DISCARDS))
    own_m = m[D]
    discard_mask = sum(map(BIT_OF.__getitem__, d.discards))
    if (nd == DISCARDS and discard_mask.bit_count() == DISCARDS and own_m & discard_mask == discard_mask
            and not dup[D] and kitty_mask.bit_count() == len(kitty) and not own_m & kitty_mask):
        # The plain exchange: four of his own cards out, the kitty in.
        m[D] = (own_m ^ discard_mask) | kitty_mask
        kit, discards = [], ()
    else:
        kit, discards = list(kitty), map(CARD.__getitem__, d.discards)
    own_dup = dict(dup[D]) if dup[D] else None
    for x in discards:
        if H.remove(D, x):
            continue
        if x in kit:
            kit.remove(x)
            if swap:
                add(F.DiscardNotHeld(deal=dn, player=P[D], card=CANONICAL[x], hand=tuple(names(hand_cards(own_m, own_dup))),
                                     kitty=tuple(names(kitty)), kitty_rule=rules.kitty, from_kitty=True))
            continue
        add(F.DiscardNotHeld(deal=dn, player=P[D], card=CANONICAL[x], hand=tuple(names(hand_cards(own_m, own_dup))),
                             kitty=tuple(names(kitty)), kitty_rule=rules.kitty, from_kitty=False))
    for c in kit:
        H.add(D, c)
    if trace is not None:
        from . import events as ev
        trace.visit(ev.KittyExchanged(dn, P[D], names(kitty), list(d.discards),
                                      {P[s]: names(H.cards(s)) for s in range(3)}))



def _tricks(ctx: _Game, H: _Hands, dn: int, d, D: int, stop_at: tuple[int, int] | None):
    """The play, trick by trick, until the target; (won, winners, decided, leader due, trick won at) or a Position."""
    P, seat, add, trace, target = ctx.P, ctx.seat, ctx.add, ctx.trace, ctx.rules.target
    CARD = CARD_OF
    m = H.m
    L = (D + 1) % 3
    won = [0, 0, 0]
    winners: list[int | None] = []  # seat winning each counted trick (None: an empty trick)
    leader_due = L
    tricks = d.tricks
    for tn, t in enumerate(tricks, 1):
        ld = seat[t.leader]
        cs = t.cards
        if stop_at is not None and stop_at == (dn, tn):
            hands = (H.cards(0), H.cards(1), H.cards(2))
            return Position(dn, tn, hands, list(won), leader_due, hand_cards(m[leader_due]))
        w = _check_trick(P, H, add, trace, dn, tn, ld, leader_due, [CARD[x] for x in cs])
        if w is None:
            winners.append(None)
            continue
        if trace is not None:
            from . import events as ev
            trace.visit(ev.TrickWon(dn, tn, P[ld], list(cs[:3]), P[w],
                                    {P[s]: won[s] + (s == w) for s in range(3)}))
        n = won[w] + 1
        won[w] = n
        winners.append(w)
        leader_due = w
        if n == target:
            for late in range(tn + 1, len(tricks) + 1):
                add(F.PlayAfterEnd(deal=dn, trick=late, what="trick", winner=P[w], won_at=(dn, tn)))
            return won, winners, True, leader_due, tn
    return won, winners, False, leader_due, None


def _result(g: GameData, add, findings: list[Finding], source: str, deal_results: list[DealResult],
            winner: int | None, record: tuple[str | None, bytes | None], first_dealer: str | None = None,
            keep: bool = True) -> GameResult:
    """The game's result: won or unfinished, the nets, and the table's claimed result compared.
    Without deals (the lane's), `first_dealer` names who dealt first; `keep` keeps the game as data."""
    P, rules = g.players, g.rules
    net = payments = None
    if winner is None:
        last = deal_results[-1] if deal_results else None
        tallies = tuple((P[s], last.tricks[s]) for s in range(3)) if last else ()
        add(F.Unfinished(deals=len(deal_results), target=rules.target, tallies=tallies))
    elif g.stake is not None:
        net, payments = settle_game(P, winner, deal_results[-1], g.stake)
    result = GameResult(
        id=g.id, source=source, status=Status.WON if winner is not None else Status.UNFINISHED,
        findings=findings, players=P, winner=P[winner] if winner is not None else None, deals=deal_results,
        stake=g.stake, currency=g.currency, net=net, payments=payments or [],
        rules=rules.as_dict(), series=g.series, played_at=g.played_at,
        first_dealer=g.deals[0].dealer if g.deals else first_dealer, data=g if keep else None, text=record[0],
        fingerprint=record[1],
    )
    if g.claimed is not None:
        _check_claim(g, result, add)
    return result


def _claim(P, H: _Hands, x: int, claim, leader: int, won: list[int], recorded: int, rules, dn: int, add,
           trace) -> claims.ClaimResult:
    """Judge a deal's claim from the hands as replayed (docs/game.md §12); report it when it fails."""
    sizes = [len(H.cards(s)) if H.dup[s] else H.m[s].bit_count() for s in range(3)]
    from . import claims  # for a deal with a claim only
    res = claims.adjudicate(list(H.m), sizes, x, claim.accepted, claim.statement, leader, won, recorded,
                            rules.target, rules.claim_rule)
    f = claims.finding(res, P, dn, leader)
    if f is not None:
        add(f)
    if trace is not None:
        from . import events as ev
        trace.visit(ev.ClaimJudged(dn, res.first_trick, P[x], res.accepted, res.statement, res.tricks, res.rule,
                                   res.holds, res.line_names(), P[leader],
                                   {P[s]: won[s] + (res.tricks if s == x else 0) for s in range(3)}))
    return res


def settle_game(players: tuple[str, ...], winner: int, deciding: DealResult,
                stake: Decimal) -> tuple[dict[str, Decimal], list[tuple[str, str, Decimal]]]:
    """Each player's net and the payments of a won game (docs/game.md §8); the nets sum to zero."""
    shorts = tuple(deciding.tricks[s] < deciding.quotas[s] for s in range(3))
    # The stake goes as text, which tells 0.5 from 0.50 (equal Decimals, one cache entry otherwise).
    nets, pays = _settle(winner, shorts, str(stake))
    return ({p: nets[s] for s, p in enumerate(players)},
            [(p, players[winner], pays[s]) for s, p in enumerate(players) if s != winner])


@functools.lru_cache(maxsize=4096)  # a season has few stakes: the sums are made once for each
def _settle(winner: int, shorts: tuple[bool, ...],
            stake_text: str) -> tuple[tuple[Decimal, ...], tuple[Decimal | None, ...]]:
    """Nets and payments by seat: a loser pays the stake, twice when short of quota; every game
    gets its own dict and list of these amounts."""
    stake = Decimal(stake_text)  # exactly the stake, exponent and all
    pays: list[Decimal | None] = [None, None, None]
    nets = [money.ZERO] * 3
    win_total = money.ZERO
    for s in range(3):
        if s != winner:
            pays[s] = pay = money.times(stake, 2 if shorts[s] else 1)
            nets[s] = money.times(pay, -1)
            win_total = money.add(win_total, pay)
    nets[winner] = win_total
    return tuple(nets), tuple(pays)


def _pair_nets(pays, players: tuple[str, ...]) -> dict[tuple[str, str], Decimal]:
    """Net amount per pair (a, b) in seat order: positive when a pays b."""
    order = {p: i for i, p in enumerate(players)}
    out: dict[tuple[str, str], Decimal] = {}
    for a, b, amt in pays:
        if order[a] < order[b]:
            key, v = (a, b), amt
        else:
            key, v = (b, a), money.times(amt, -1)
        out[key] = money.add(out.get(key, money.ZERO), v)
    return out


def _owes(a: str, b: str, v: Decimal) -> str:
    if v.is_zero():
        return f"nothing between {a} and {b}"
    return f"{a} pays {b} {money.fmt(v)}" if v > 0 else f"{b} pays {a} {money.fmt(v.copy_negate())}"


def _check_claim(g: GameData, result: GameResult, add) -> None:
    cl = g.claimed
    P = g.players
    if cl.winner_claimed and cl.winner != result.winner:
        add(F.ClaimMismatch(part="winner", claimed=cl.winner, replayed=result.winner))
    ref = result.last_deal
    if cl.tricks is not None and ref is not None:
        replayed = {p: ref.tricks[s] for s, p in enumerate(P)}
        if any(replayed[p] != n for p, n in cl.tricks.items()):
            add(F.ClaimMismatch(part="tricks", claimed=dict(cl.tricks), replayed=replayed, in_deal=ref.number))
    if cl.payments is not None and cl.payments != result.payments:
        claimed = _pair_nets(cl.payments, P)
        replayed = _pair_nets(result.payments, P)
        words = []
        for i in range(3):
            for j in range(i + 1, 3):
                key = (P[i], P[j])
                a, b = claimed.get(key, money.ZERO), replayed.get(key, money.ZERO)
                if a != b:
                    words.append(f"the table wrote {_owes(*key, a)}; the rules say {_owes(*key, b)}")
        if words:
            add(F.ClaimMismatch(part="payments", words="; ".join(words) + _why_payments(result),
                                claimed=[{"from": a, "to": b, "amount": money.fmt(v)} for a, b, v in cl.payments],
                                replayed=[{"from": a, "to": b, "amount": money.fmt(v)} for a, b, v in result.payments]))


def _why_payments(result: GameResult) -> str:
    d = result.deciding
    if d is None:
        return " (the game is unfinished: no money changes hands)"
    if result.stake is None:
        return " (the game has no stake)"
    parts = [f"{p} took {d.tricks[s]} tricks, quota {d.quotas[s]}{': short' if d.tricks[s] < d.quotas[s] else ''}"
             for s, p in enumerate(result.players) if p != result.winner]
    return f" ({'; '.join(parts)})"
