"""The replay: one game driven through the rules model (board.py), deal by deal, its findings and result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from . import core
from . import findings as F
from .board import (DISCARDS, HAND_SIZE, KITTY_SIZE, TRICKS_PER_DEAL, Hands, Position, legal_mask, pass_order,
                    returns_allowed, revokes, role, trick_winner, wrong_return)
from .cards import BIT, BIT_OF, CANONICAL, CARD_OF, SUIT_MASK, SUIT_OF, SUITS, hand_cards, names, sort_cards
from .outcome import game_result, quotas
from .records import GameData, is_full, is_play_alone
from .results import DealResult, GameResult

if TYPE_CHECKING:  # the events load only for a traced replay, the claims' judge for a claim
    from . import claims
    from . import events as ev

MAX_FINDINGS = 1000  # findings of the play kept for one game; beyond them the result counts the rest
FULL_DECK = (1 << 52) - 1


class _Game(msgspec.Struct):
    """What every step of one game's replay reads: the players, the rules, where findings go."""

    players: tuple[str, ...]
    seat: dict[str, int]
    rules: Any
    add: Any  # appends a finding (and, traced, its event)
    trace: ev.Visitor | None
    highest: bool
    pickup: bool


class _Played(msgspec.Struct):
    """A deal's play as replayed: tricks won by seat, each trick's winner, and how it ended."""

    won: list[int]
    winners: list[int | None]  # by recorded trick (None: an empty trick)
    decided: bool
    leader_due: int
    won_at: int | None  # the trick that reached the target


def replay(game: GameData, source: str = "", trace: ev.Visitor | None = None, text: str | None = None,
           fingerprint: bytes | None = None) -> GameResult:
    """Replay a game and return its result, which keeps the game and, when given, its record's
    text and fingerprint (what the archive stores).

    With `trace` a visitor (visitor.Visitor), every event the replay meets (a deal started, a
    pass, the kitty, a card, a trick, a finding, a claim) is sent to it, in order.
    """
    return _run(game, source, trace, None, (text, fingerprint))


def position_at(game: GameData, deal: int, trick: int, source: str = "",
                trace: ev.Visitor | None = None) -> Position | None:
    """The table just before `trick` of `deal` (trick = recorded tricks + 1: after them), or None
    when the game ended in an earlier deal; past the trick that won the game, the table as play
    stopped. `trace` gets the events up to it."""
    out = _run(game, source, trace, (deal, trick))
    return out if isinstance(out, Position) else None


class ResultBuilder:
    """Builds a game's result from what the replay meets, finding by finding and deal by deal (as
    python-chess's GameBuilder builds a game from a visitor's hooks): the replay's one output path.
    A traced replay's visitor hears the game begin and end and every finding."""

    def __init__(self, game: GameData, source: str, record: tuple[str | None, bytes | None],
                 visitor: ev.Visitor | None = None) -> None:
        self.game, self.source, self.record, self.visitor = game, source, record, visitor
        self.findings: list[F.Finding] = []
        self.deals: list[DealResult] = []
        self.winner: int | None = None  # the seat that won the game
        self.won_at: tuple[int, int] | None = None  # its deal and trick
        self.add = self.findings.append if visitor is None else self._add_heard
        if visitor is not None:
            visitor.begin_game(game)

    def _add_heard(self, finding: F.Finding) -> None:
        self.findings.append(finding)
        self._announce(finding)

    def _announce(self, finding: F.Finding) -> None:
        from . import events as ev
        self.visitor.visit(ev.FindingMade(finding))

    def deal_ended(self, res: DealResult, won_at_trick: int | None, by: int | None) -> None:
        """A deal has been replayed: its result, and the trick and seat that won the game in it."""
        self.deals.append(res)
        if res.decided:
            self.winner, self.won_at = by, (res.number, won_at_trick)

    def result(self) -> GameResult:
        """The game's result; a record wrong everywhere keeps its first findings and counts the rest."""
        beyond = max(len(self.findings) - MAX_FINDINGS, 0)
        del self.findings[MAX_FINDINGS:]
        out = game_result(self.game, self.findings, self.source, self.deals, self.winner, self.record,
                          not_shown=beyond, announce=None if self.visitor is None else self._announce)
        if self.visitor is not None:
            self.visitor.end_game(out)
        return out


def _run(game: GameData, source: str, trace: ev.Visitor | None, stop_at: tuple[int, int] | None,
         record: tuple[str | None, bytes | None] = (None, None)) -> GameResult | Position:
    players, rules = game.players, game.rules
    build = ResultBuilder(game, source, record, trace)
    ctx = _Game(players, game.seat, rules, build.add, trace, rules.return_rule == "highest", rules.kitty == "pickup")
    # The compiled pass for plain deals (none on the pure path); a traced replay or a stop at a
    # position needs every event.
    fast = core.clean_deal if trace is None and stop_at is None else None
    prev_dealer: int | None = None
    for dn, deal in enumerate(game.deals, 1):
        if build.winner is not None:
            build.add(F.PlayAfterEnd(deal=dn, what="whole deal", winner=players[build.winner], won_at=build.won_at))
            continue
        dealer = game.seat[deal.dealer]
        _deal_started(ctx, dn, deal, dealer, prev_dealer)
        prev_dealer = dealer
        plain = fast is not None and deal.claim is None and deal.left is None and (is_full(deal) or is_play_alone(deal))
        out = _fast_deal(ctx, fast, dn, deal, dealer, len(game.deals)) if plain else None
        if out is None:
            out = _replay_deal(ctx, dn, deal, dealer, stop_at, len(game.deals))
            if isinstance(out, Position):
                return out
        build.deal_ended(*out)
    return build.result()


def tallied(game: GameData, tallies, source: str = "", fingerprint: bytes | None = None,
            first_dealer: str | None = None, text: str | None = None) -> GameResult:
    """The result of a won game whose every deal the compiled lane tallied with nothing amiss
    (lane.py): `tallies` holds each deal's (dealer, (won0, won1, won2, winners, decided)). With
    `text` the result keeps it and the game (its deals as blocks), as the archive needs."""
    deal_results = [DealResult(dn, dealer, quotas(game.rules, dealer), [w0, w1, w2], len(ws), decided, ws, None)
                    for dn, (dealer, (w0, w1, w2, ws, decided)) in enumerate(tallies, 1)]
    winner = deal_results[-1].winners[-1]
    return game_result(game, [], source, deal_results, winner, (text, fingerprint), first_dealer, keep=text is not None)


def _deal_started(ctx: _Game, dn: int, deal, dealer: int, prev_dealer: int | None) -> None:
    """The deal's event, and the dealer checked against the rotation (WRONG_DEALER)."""
    players = ctx.players
    if ctx.trace is not None:
        quota = quotas(ctx.rules, dealer)
        from . import events as ev
        dealt = None if deal.hands is None else \
            tuple(tuple(sort_cards(map(CARD_OF.__getitem__, deal.hands[players[s]]))) for s in range(3))
        kitty = None if deal.kitty is None else tuple(sort_cards(map(CARD_OF.__getitem__, deal.kitty)))
        ctx.trace.visit(ev.DealStarted(dn, dealer, quota, dealt, kitty))
    if prev_dealer is not None and ctx.rules.deal_rotation == "left" and dealer != (prev_dealer + 1) % 3:
        ctx.add(F.WrongDealer(deal=dn, player=players[dealer], previous=players[prev_dealer],
                              expected=players[(prev_dealer + 1) % 3]))


def _fast_deal(ctx: _Game, fast, dn: int, deal, dealer: int, n_deals: int):
    """A deal with nothing amiss, tallied in one compiled pass; None when it needs the full replay."""
    players, target = ctx.players, ctx.rules.target
    dealt = None if deal.hands is None else (deal.hands[players[0]], deal.hands[players[1]], deal.hands[players[2]])
    tallied = fast(dealt, deal.kitty, deal.passes, deal.discards, deal.tricks, ctx.seat, dealer, ctx.highest, target,
                   CARD_OF, ctx.pickup)
    if tallied is None:
        return None
    won, winners, decided = [tallied[0], tallied[1], tallied[2]], tallied[3], tallied[4]
    if not decided:
        _stopped_early(ctx, dn, deal, n_deals)
    res = DealResult(dn, dealer, quotas(ctx.rules, dealer), won, len(winners), decided, winners, None)
    return res, len(winners), (winners[-1] if decided else None)


def _replay_deal(ctx: _Game, dn: int, deal, dealer: int, stop_at: tuple[int, int] | None, n_deals: int):
    """The full replay of one deal: every rule checked, every finding worded; or the Position asked
    for. A deal that records only what the table saw is replayed by what it proves (shown.py)."""
    players, target = ctx.players, ctx.rules.target
    kitty = None if deal.kitty is None else list(map(CARD_OF.__getitem__, deal.kitty))
    dealt = None if deal.hands is None else (deal.hands[players[0]], deal.hands[players[1]], deal.hands[players[2]])
    table: Any
    if is_full(deal):
        table = _Dealt(ctx, Hands())
        _deal_hands(ctx, table.hands, dn, dealt, kitty)
    else:
        from .shown import Shown  # records of the play only
        table = Shown(ctx, deal, dealer)
        _deal_hands(ctx, Hands(), dn, dealt, kitty)
    _passes(ctx, table, dn, deal, dealer)
    _kitty(ctx, table, dn, deal, dealer, kitty)
    play = _tricks(ctx, table, dn, deal, dealer, stop_at)
    if isinstance(play, Position):
        return play
    if stop_at is not None and stop_at[0] == dn:
        return table.position(dn, stop_at[1], play.won, play.leader_due, every_copy=True)
    if deal.left is not None:
        table.left_checked(dn, deal)
    won, decided, won_trick = play.won, play.decided, play.won_at
    claim, claim_res, by = deal.claim, None, (play.winners[-1] if decided else None)
    if claim is not None and decided:
        ctx.add(F.PlayAfterEnd(deal=dn, trick=len(deal.tricks) + 1, what="claim", winner=players[by],
                               won_at=(dn, won_trick)))
    elif claim is not None:
        claim_res = _claim(ctx, table.claim_hands(len(deal.tricks) + 1), ctx.seat[claim.by], claim, play.leader_due,
                           won, len(deal.tricks), dn)
        claimer, claimed = claim_res.by, claim_res.tricks
        won[claimer] += claimed
        if claimed and won[claimer] >= target:
            by, won_trick, decided = claimer, len(deal.tricks) + claimed, True
    if not decided and claim is None:
        _stopped_early(ctx, dn, deal, n_deals)
    credited = claim_res.tricks if claim_res is not None else 0
    counted = len(play.winners) - play.winners.count(None) + credited
    res = DealResult(dn, dealer, quotas(ctx.rules, dealer), won, counted, decided, play.winners, claim_res)
    return res, won_trick, by


def _stopped_early(ctx: _Game, dn: int, deal, n_deals: int) -> None:
    """DEAL_INCOMPLETE for a deal undecided that stops before 16 tricks when another deal follows."""
    if dn < n_deals and len(deal.tricks) < TRICKS_PER_DEAL:
        ctx.add(F.DealIncomplete(deal=dn, trick=len(deal.tricks) + 1, tricks=len(deal.tricks), target=ctx.rules.target))


def _deal_hands(ctx: _Game, hands: Hands, dn: int, dealt, kitty: list[int] | None) -> None:
    """The hands as dealt; sizes and repeated cards checked (DEAL_SIZE, DEAL_DUPLICATE). A record
    of the play checks the hands and the kitty it records (None: not recorded)."""
    masks = [sum(map(BIT_OF.__getitem__, h)) for h in dealt] if dealt is not None else [0, 0, 0]
    # A sum of bits has fewer bits than cards when a card repeats (the repeat carries), so sums of
    # 16, 16, 16 and 4 cards whose union is all 52 bits can only be a deck dealt once each.
    if (dealt is not None and kitty is not None and all(len(h) == HAND_SIZE for h in dealt)
            and len(kitty) == KITTY_SIZE and masks[0] | masks[1] | masks[2] | sum(BIT[c] for c in kitty) == FULL_DECK):
        hands.masks = masks
        return
    players, add = ctx.players, ctx.add
    seats = range(3) if dealt is not None else range(0)
    for s in seats:
        if len(dealt[s]) != HAND_SIZE:
            add(F.DealSize(deal=dn, player=players[s], count=len(dealt[s]), expected=HAND_SIZE))
        for c in map(CARD_OF.__getitem__, dealt[s]):
            hands.add(s, c)
    if kitty is not None and len(kitty) != KITTY_SIZE:
        add(F.DealSize(deal=dn, count=len(kitty), expected=KITTY_SIZE))
    seen = twice = 0
    for c in kitty or ():
        twice |= seen & BIT[c]
        seen |= BIT[c]
    for s in range(3):
        twice |= seen & hands.masks[s]
        seen |= hands.masks[s]
        for c in hands.extra[s]:
            twice |= BIT[c]
    for c in hand_cards(twice):
        holders = tuple(players[s] for s in seats for x in dealt[s] if x == CANONICAL[c])
        add(F.DealDuplicate(deal=dn, card=CANONICAL[c], holders=holders, kitty=(kitty or []).count(c)))


def _passes(ctx: _Game, table, dn: int, deal, dealer: int) -> None:
    """The three passes in order (PASS_SEQUENCE); the table checks each one's cards."""
    if deal.passes is None:  # a record of the play that does not show them
        return
    players, seat, add = ctx.players, ctx.seat, ctx.add
    expected = pass_order(dealer)
    for i, ps in enumerate(deal.passes):
        gv, rc = seat[ps.from_], seat[ps.to]
        if i >= 3:
            add(F.PassSequence(deal=dn, pass_=i + 1, player=players[gv], recorded=(players[gv], players[rc]),
                               expected=None))
        elif (gv, rc) != expected[i]:
            eg, er = expected[i]
            add(F.PassSequence(deal=dn, pass_=i + 1, player=players[gv], recorded=(players[gv], players[rc]),
                               expected=(players[eg], players[er]), roles=(role(eg, dealer), role(er, dealer))))
        table.pass_made(dn, i + 1, gv, rc, CARD_OF[ps.card], CARD_OF[ps.returned])
    for j in range(len(deal.passes), 3):
        eg, er = expected[j]
        add(F.PassSequence(deal=dn, pass_=j + 1, player=players[eg], recorded=None,
                           expected=(players[eg], players[er]), roles=(role(eg, dealer), role(er, dealer))))


def _kitty(ctx: _Game, table, dn: int, deal, dealer: int, kitty: list[int] | None) -> None:
    """The dealer takes the kitty and sets aside his discards (DISCARD_COUNT; the table checks each)."""
    if deal.discards is not None and len(deal.discards) != DISCARDS:
        ctx.add(F.DiscardCount(deal=dn, player=ctx.players[dealer], count=len(deal.discards), expected=DISCARDS))
    table.kitty_taken(dn, dealer, kitty, None if deal.discards is None else [CARD_OF[x] for x in deal.discards])


def _tricks(ctx: _Game, table, dn: int, deal, dealer: int, stop_at: tuple[int, int] | None) -> _Played | Position:
    """The play, trick by trick, until the target; or the Position asked for."""
    players, target = ctx.players, ctx.rules.target
    won = [0, 0, 0]
    winners: list[int | None] = []
    leader_due = (dealer + 1) % 3  # L leads the first trick
    for tn, t in enumerate(deal.tricks, 1):
        if stop_at == (dn, tn):
            return table.position(dn, tn, won, leader_due)
        leader = ctx.seat[t.leader]
        winner = _trick(ctx, table, dn, tn, leader, leader_due, [CARD_OF[x] for x in t.cards])
        winners.append(winner)
        if winner is None:
            continue
        won[winner] += 1
        leader_due = winner
        if ctx.trace is not None:
            from . import events as ev
            played = tuple(CARD_OF[x] for x in t.cards[:3])
            ctx.trace.visit(ev.TrickWon(dn, tn, leader, played, winner, (won[0], won[1], won[2])))
        if won[winner] >= target:
            for late in range(tn + 1, len(deal.tricks) + 1):
                ctx.add(F.PlayAfterEnd(deal=dn, trick=late, what="trick", winner=players[winner], won_at=(dn, tn)))
            return _Played(won, winners, True, leader_due, tn)
    return _Played(won, winners, False, leader_due, None)


def _trick(ctx: _Game, table, dn: int, tn: int, leader: int, leader_due: int, cards: list[int]) -> int | None:
    """One trick, every rule checked (the table checks each card); the winning seat (None: no cards)."""
    players, add = ctx.players, ctx.add
    if leader != leader_due:
        add(F.LeadOutOfTurn(deal=dn, trick=tn, player=players[leader], expected=players[leader_due]))
    if len(cards) != 3:
        add(F.TrickSize(deal=dn, trick=tn, cards=tuple(CANONICAL[c] for c in cards)))
        if not cards:
            return None
    led = SUIT_OF[cards[0]]
    for j, c in enumerate(cards[:3]):
        table.play(dn, tn, j, (leader + j) % 3, c, led)
    return trick_winner(leader, cards[:3])


class _Dealt:
    """The table of a deal that records its hands, kitty, passes and discards: every card checked
    against the hands as replayed (board.Hands)."""

    def __init__(self, ctx: _Game, hands: Hands) -> None:
        self.ctx, self.hands = ctx, hands

    def pass_made(self, dn: int, pn: int, gv: int, rc: int, given: int, returned: int) -> None:
        """One pass: the giver held the card, the receiver the card returned, by the return rule."""
        ctx, hands, players, add = self.ctx, self.hands, self.ctx.players, self.ctx.add
        before, before_extra = hands.masks[rc], dict(hands.extra[rc])
        if not hands.take(gv, given):
            add(F.PassNotHeld(deal=dn, pass_=pn, player=players[gv], card=CANONICAL[given],
                              hand=tuple(names(hands.cards(gv)))))
        hands.add(rc, given)
        if not before & BIT[returned]:
            add(F.ReturnNotHeld(deal=dn, pass_=pn, player=players[rc], card=CANONICAL[returned],
                                received=CANONICAL[given], hand_before=tuple(names(hand_cards(before, before_extra)))))
        elif wrong_return(before, given, returned, ctx.highest):
            add(F.ReturnWrongCard(deal=dn, pass_=pn, player=players[rc], card=CANONICAL[returned],
                                  received=CANONICAL[given],
                                  expected=tuple(names(hand_cards(returns_allowed(before, given, ctx.highest)))),
                                  return_rule=ctx.rules.return_rule))
        hands.take(rc, returned)
        hands.add(gv, returned)
        if ctx.trace is not None:
            from . import events as ev
            held = tuple(hand_cards(before & SUIT_MASK[SUIT_OF[given]]))
            ctx.trace.visit(ev.PassMade(dn, pn, gv, rc, given, returned, held))

    def kitty_taken(self, dn: int, dealer: int, kitty: list[int], discards: list[int]) -> None:
        """The kitty into the dealer's hand, his discards out of it (DISCARD_NOT_HELD)."""
        ctx, hands = self.ctx, self.hands
        own, own_extra = hands.masks[dealer], dict(hands.extra[dealer])
        for x, from_kitty in hands.exchange_kitty(dealer, kitty, discards, ctx.pickup):
            ctx.add(F.DiscardNotHeld(deal=dn, player=ctx.players[dealer], card=CANONICAL[x],
                                     hand=tuple(names(hand_cards(own, own_extra))), kitty=tuple(names(kitty)),
                                     kitty_rule=ctx.rules.kitty, from_kitty=from_kitty))
        if ctx.trace is not None:
            from . import events as ev
            ctx.trace.visit(ev.KittyExchanged(dn, dealer, tuple(sort_cards(kitty)), tuple(discards),
                                              tuple(tuple(hands.cards(s)) for s in range(3))))

    def play(self, dn: int, tn: int, place: int, seat: int, card: int, led: int) -> None:
        """A card played by a seat, at its place in trick tn: held (CARD_NOT_HELD), following suit (REVOKE)."""
        ctx, hands = self.ctx, self.hands
        before = hands.masks[seat]
        if not hands.take(seat, card):
            ctx.add(F.CardNotHeld(deal=dn, trick=tn, player=ctx.players[seat], card=CANONICAL[card],
                                  hand=tuple(names(hands.cards(seat)))))
        if place and revokes(before, card, led):
            ctx.add(F.Revoke(deal=dn, trick=tn, player=ctx.players[seat], card=CANONICAL[card], led=SUITS[led],
                             held=tuple(names(hand_cards(before & SUIT_MASK[led])))))
        if ctx.trace is not None:
            from . import events as ev
            legal = tuple(hand_cards(legal_mask(before, led if place else None)))
            ctx.trace.visit(ev.CardPlayed(dn, tn, seat, card, legal))

    def position(self, dn: int, tn: int, won: list[int], leader_due: int, every_copy: bool = False) -> Position:
        hands = self.hands
        legal = hands.cards(leader_due) if every_copy else hand_cards(hands.masks[leader_due])
        return Position(dn, tn, (hands.cards(0), hands.cards(1), hands.cards(2)), list(won), leader_due, legal)

    def left_checked(self, dn: int, deal) -> None:
        """A `left` beside the hands: each card in it must be its player's when play stopped."""
        for s, name in enumerate(self.ctx.players):
            for c in map(CARD_OF.__getitem__, deal.left[name]):
                if not self.hands.masks[s] & BIT[c]:
                    self.ctx.add(F.CardNotHeld(deal=dn, player=name, card=CANONICAL[c],
                                               hand=tuple(names(self.hands.cards(s)))))

    def claim_hands(self, tn: int) -> tuple[list[int], list[int]]:
        """The hands a claim is judged from: masks and sizes (extra copies counted)."""
        return list(self.hands.masks), [self.hands.size(s) for s in range(3)]


def _claim(ctx: _Game, hands: tuple[list[int], list[int]] | str, claimer: int, claim, leader: int, won: list[int],
           recorded: int, dn: int) -> claims.ClaimResult:
    """Judge a deal's claim from the hands as replayed (docs/game.md §12); report it when it fails.
    `hands` is why it cannot be judged when the record does not show them."""
    from . import claims  # for a deal with a claim only
    players, rules = ctx.players, ctx.rules
    if isinstance(hands, str):
        res = claims.unjudged(claimer, claim.accepted, claim.statement, won, recorded, rules, hands)
    else:
        res = claims.adjudicate(*hands, claimer, claim.accepted, claim.statement, leader, won, recorded, rules.target,
                                rules.claim_rule)
    f = claims.finding(res, players, dn, leader)
    if f is not None:
        ctx.add(f)
    if ctx.trace is not None:
        from . import events as ev
        credited = tuple(won[s] + (res.tricks if s == claimer else 0) for s in range(3))
        line = None if res.line is None else tuple(tuple(t) for t in res.line)
        ctx.trace.visit(ev.ClaimJudged(dn, res.first_trick, claimer, res.accepted, res.statement, res.tricks, res.rule,
                                       res.holds, line, leader, credited, res.not_judged))
    return res
