"""The table of a deal recorded as the table saw it (docs/game.md §13): the breaches its record proves, worded."""

from __future__ import annotations

from typing import Any

from . import findings as F
from .board import Position, legal_mask
from .cards import BIT, CANONICAL, SUIT_OF, SUITS, hand_cards, names, sort_cards
from .seen import Seen
from .words import plural


class Shown:
    """What the engine asks of a deal's table (engine._Dealt is the other), answered from what the
    record proves (seen.Seen) instead of hands: nothing is reported that the record does not prove,
    and every finding names its proof."""

    def __init__(self, ctx: Any, deal, dealer: int) -> None:
        self.ctx = ctx
        self.seen = Seen(deal, ctx.seat, ctx.players, dealer, ctx.pickup, ctx.rules.target)

    def pass_made(self, dn: int, pn: int, gv: int, rc: int, given: int, returned: int) -> None:
        """PASS_NOT_HELD, RETURN_NOT_HELD or RETURN_WRONG_CARD where the record proves them."""
        ctx, players, proved = self.ctx, self.ctx.players, self.seen.passes[pn - 1]
        if proved.not_given is not None:
            ctx.add(F.PassNotHeld(deal=dn, pass_=pn, player=players[gv], card=CANONICAL[given],
                                  proved_by=proved.not_given))
        if proved.not_returned is not None:
            ctx.add(F.ReturnNotHeld(deal=dn, pass_=pn, player=players[rc], card=CANONICAL[returned],
                                    received=CANONICAL[given], proved_by=proved.not_returned))
        else:
            should = self.seen.wrong_return(pn, ctx.highest)
            if should is not None:
                ctx.add(F.ReturnWrongCard(deal=dn, pass_=pn, player=players[rc], card=CANONICAL[returned],
                                          received=CANONICAL[given], expected=tuple(CANONICAL[y] for y, _ in should),
                                          return_rule=ctx.rules.return_rule,
                                          proved_by=tuple((CANONICAL[y], at) for y, at in should)))
        if ctx.trace is not None:
            from . import events as ev
            ctx.trace.visit(ev.PassMade(dn, pn, gv, rc, given, returned, None))

    def kitty_taken(self, dn: int, dealer: int, kitty: list[int] | None, discards: list[int] | None) -> None:
        """DISCARD_NOT_HELD where the record proves it; the hands at the first lead, as far as known."""
        ctx = self.ctx
        for x, proof, from_kitty in self.seen.discards or ():
            if proof is not None or from_kitty:
                ctx.add(F.DiscardNotHeld(deal=dn, player=ctx.players[dealer], card=CANONICAL[x], hand=None,
                                         kitty=None if kitty is None else tuple(names(kitty)),
                                         kitty_rule=ctx.rules.kitty, from_kitty=from_kitty, proved_by=proof))
        if ctx.trace is not None:
            from . import events as ev
            known, unknown = self.seen.known_at(1)
            ctx.trace.visit(ev.KittyExchanged(dn, dealer, None if kitty is None else tuple(sort_cards(kitty)),
                                              None if discards is None else tuple(discards),
                                              tuple(tuple(h) for h in known), unknown))

    def play(self, dn: int, tn: int, place: int, seat: int, card: int, led: int) -> None:
        """CARD_NOT_HELD and REVOKE where the record proves them."""
        ctx, seen, name = self.ctx, self.seen, self.ctx.players[seat]
        checked = tn <= seen.end
        proof = seen.not_played.get((tn, place)) if checked else None
        if proof is not None:
            ctx.add(F.CardNotHeld(deal=dn, trick=tn, player=name, card=CANONICAL[card], proved_by=proof))
        held = seen.held_later(seat, led, tn) if place and checked and SUIT_OF[card] != led else []
        if held:
            ctx.add(F.Revoke(deal=dn, trick=tn, player=name, card=CANONICAL[card], led=SUITS[led],
                             held=tuple(CANONICAL[y] for y, _ in held),
                             proved_by=tuple((CANONICAL[y], at) for y, at in held)))
        if ctx.trace is not None:
            from . import events as ev
            known, unknown = seen.known_at(tn)
            mask = sum(BIT[y] for y in known[seat]) | BIT[card]
            legal = () if unknown[seat] else tuple(hand_cards(legal_mask(mask, led if place else None)))
            ctx.trace.visit(ev.CardPlayed(dn, tn, seat, card, legal))

    def position(self, dn: int, tn: int, won: list[int], leader_due: int, every_copy: bool = False) -> Position:
        """The table before trick tn: the cards known in each hand, how many are not, the legal leads."""
        known, unknown = self.seen.known_at(tn)
        legal = [] if unknown[leader_due] else list(known[leader_due])
        return Position(dn, tn, (list(known[0]), list(known[1]), list(known[2])), list(won), leader_due, legal,
                        unknown)

    def left_checked(self, dn: int, deal) -> None:
        """CARD_NOT_HELD (trick null) for each card of a `left` that the record put elsewhere."""
        for s, c, proof in self.seen.not_left:
            self.ctx.add(F.CardNotHeld(deal=dn, player=self.ctx.players[s], card=CANONICAL[c], proved_by=proof))

    def claim_hands(self, tn: int) -> tuple[list[int], list[int]] | str:
        """The hands a claim before trick tn is judged from, or why it cannot be judged."""
        from .claims import LEFT_UNEVEN, NOT_RECORDED
        if not self.seen.hands_known:
            return NOT_RECORDED
        known, _ = self.seen.known_at(tn)
        for seat, hand in enumerate(known):  # a left short of a card, or over: not the table's position
            if len(hand) != (held := self.seen.size_at(seat, tn)):
                return (f"{LEFT_UNEVEN}: {self.ctx.players[seat]}'s left shows {plural(len(hand), 'card')} "
                        f"where {held} remain in that hand")
        masks = [sum(BIT[c] for c in h) for h in known]
        return masks, [m.bit_count() for m in masks]

