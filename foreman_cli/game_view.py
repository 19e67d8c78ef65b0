"""The terminal views of one game: the replay and a position, the cost of each card, the verdict on a settlement."""

from __future__ import annotations

import os
import sys
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import money
from .audit import Summary
from .board import role
from .cards import CANONICAL, names
from .findings import CODES, ERROR, Finding
from .visitor import Visitor

if TYPE_CHECKING:  # the event classes load only where a replay is traced
    from .events import ClaimJudged, DealStarted, FindingMade, GameEnded, KittyExchanged, PassMade, TrickWon
from .words import plural, shown_id
from .render import console, game_title, json_line, rate


_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_ROLE_QUOTA = "{p} {role} (quota {q})"


def _use_symbols(con: Console) -> bool:
    return con.is_terminal and not os.environ.get("NO_COLOR")


def _card(tok: str, sym: bool) -> Text:
    if not sym:
        return Text(tok)
    suit = tok[-1]
    return Text(tok[:-1] + _SYMBOL[suit], style="red" if suit in "HD" else "bold")


def _cards(toks, sym: bool, sep: str = " ") -> Text:
    out = Text()
    for i, t in enumerate(toks):
        if i:
            out.append(sep)
        out.append_text(_card(t, sym))
    return out


def _by_suit(toks, sym: bool) -> Text:
    """A hand grouped by suit, in the view's one card notation: 'AS KS 7S  QH 3H ...'."""
    out = Text()
    for s in "SHDC":
        suit = [t for t in toks if t[-1] == s]
        if not suit:
            continue
        if out:
            out.append("  ")
        out.append_text(_cards(suit, sym))
    return out


def _finding_line(finding: Finding) -> Text:
    line = Text(f"{finding.place}: " if finding.place else "")
    line.append(finding.message)
    line.append(f" ({finding.code})", style="bold red" if finding.severity == ERROR else "yellow")
    return line


def _print_finding(con: Console, finding: Finding) -> None:
    """A finding under '  ! ': on a terminal wrapped at words with the lines after indented, so no code
    is ever cut; elsewhere one line, however long."""
    mark = Text("  ! ", style="bold red" if finding.severity == ERROR else "yellow")
    if not con.is_terminal:
        con.print(mark + _finding_line(finding))
        return
    grid = Table.grid()
    grid.add_column(width=4, no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(mark, _finding_line(finding))
    con.print(grid, soft_wrap=False)


def replay_view(trace, out: IO[str] | None = None) -> None:
    """Print a game move by move: roles, hands, passes with proof, kitty, tricks, findings, result."""
    con = console(out)
    view = _ReplayView(con, trace)
    for e in trace.events:
        view.visit(e)
    view.show_held()
    if trace.position is not None:
        _position_block(con, trace, view.sym)


class _ReplayView(Visitor):
    """The terminal replay, event by event; a finding of a pass or a trick waits under its line."""

    def __init__(self, con: Console, trace) -> None:
        self.con, self.sym = con, _use_symbols(con)
        self.players, self.rules = list(trace.data.players), trace.data.rules
        self.width = max(6, *(len(p) for p in self.players))
        self.held: list[Finding] = []
        self.passes_due = False  # a record of the play prints 'Passes:' at its first pass
        result = trace.result
        head = Text(f"Game {shown_id(result.id) if result.id else '(no id)'}", style="bold")
        head.append(f"  ({result.source})  {', '.join(self.players)}")
        if result.stake is not None:
            head.append(f"  stake {money.fmt(result.stake)}{' ' + result.currency if result.currency else ''}")
        con.print(head)
        rules = self.rules
        con.print(f"Rules: quota {rules.quota}, target {rules.target}, return {rules.return_rule}, "
                  f"kitty {rules.kitty}, rotation {rules.deal_rotation}, next dealer {rules.next_dealer}, "
                  f"claims {rules.claim_rule}")
        for line in trace.doubts:
            con.print(Text(f"In doubt: {line}; this is the first record", style="bold red"))

    def show_held(self, key: str | None = None, number: int | None = None) -> None:
        for f in [f for f in self.held if key is None or getattr(f, key) == number]:
            _print_finding(self.con, f)
            self.held.remove(f)

    def _hands(self, hands: tuple[tuple[int, ...], ...], unknown: tuple[int, int, int] | None = None) -> None:
        for s, p in enumerate(self.players):
            line = Text(f"  {p:<{self.width}}  ") + _by_suit(names(hands[s]), self.sym)
            if unknown is not None and unknown[s]:
                line.append(f"{'  ' if hands[s] else ''}+ {plural(unknown[s], 'card')} not shown", style="dim")
            self.con.print(line)

    def on_finding(self, event: FindingMade) -> None:
        f = event.finding
        if CODES[f.code].shown_at == "place" and (f.trick is not None or f.pass_ is not None):
            self.held.append(f)
        else:
            _print_finding(self.con, f)

    def on_deal(self, event: DealStarted) -> None:
        order = (event.dealer, (event.dealer + 1) % 3, (event.dealer + 2) % 3)
        self.con.print()
        self.con.print(Text(f"Deal {event.deal}", style="bold underline") + Text("  " + ", ".join(
            _ROLE_QUOTA.format(p=self.players[s], role=role(s, event.dealer), q=event.quotas[s]) for s in order)))
        self.passes_due = True
        if event.hands is None:
            self.con.print("Hands as dealt: not recorded (a record of the play)")
            return
        self.con.print("Hands as dealt:")
        self._hands(event.hands)
        self.con.print(Text(f"  {'kitty':<{self.width}}  ") + _cards(names(event.kitty), self.sym))
        self.con.print("Passes:")
        self.passes_due = False

    def on_pass(self, event: PassMade) -> None:
        if self.passes_due:
            self.con.print("Passes:")
            self.passes_due = False
        line = Text(f"  {event.number}. {self.players[event.giver]} gave ")
        line.append_text(_card(CANONICAL[event.card], self.sym))
        line.append(f" to {self.players[event.receiver]}; {self.players[event.receiver]} returned ")
        line.append_text(_card(CANONICAL[event.returned], self.sym))
        from .trace import pass_proof  # the replay's wording, loaded with the replay
        line.append(f"  ({pass_proof(event, self.rules.return_rule, tuple(self.players))})", style="dim")
        self.con.print(line)
        self.show_held("pass_", event.number)

    def on_kitty(self, event: KittyExchanged) -> None:
        self.show_held()
        line = Text(f"Kitty: {self.players[event.dealer]} took ")
        kitty = Text("the kitty (not recorded)") if event.kitty is None else _cards(names(event.kitty), self.sym)
        line.append_text(kitty)
        line.append(" and set aside ")
        line.append_text(_cards([CANONICAL[c] for c in event.discards], self.sym) if event.discards is not None
                         else Text("the discards (not recorded)"))
        self.con.print(line)
        self.con.print("Hands at the first lead:" if event.unknown is None else
                       "Hands at the first lead, as far as the record shows them:")
        self._hands(event.hands, event.unknown)
        width = self.width
        self.con.print(Text(f"{'trick':>5}  {'leader':<{width}}  {'cards':<12} {'winner':<{width}}  "
                            + "  ".join(f"{p:>{max(len(p), 2)}}" for p in self.players), style="bold"))

    def on_trick(self, event: TrickWon) -> None:
        cards = _cards([CANONICAL[c] for c in event.cards], self.sym)
        cards.pad_right(max(0, 12 - cards.cell_len))
        width = self.width
        line = Text(f"{event.trick:>5}  {self.players[event.leader]:<{width}}  ") + cards
        line.append(f" {self.players[event.winner]:<{width}}  "
                    + "  ".join(f"{event.tallies[s]:>{max(len(p), 2)}}" for s, p in enumerate(self.players)))
        self.con.print(line)
        self.show_held("trick", event.trick)

    def on_claim(self, event: ClaimJudged) -> None:
        from .claims import claim_words  # with the replay view, as trace's wording is
        self.con.print(Text(claim_words(event.to_dict(tuple(self.players))), style="bold"))
        self.show_held("trick", event.trick)

    def on_result(self, event: GameEnded) -> None:
        self.show_held()
        _result_block(self.con, event.result)


def _result_block(con: Console, ev: dict[str, Any]) -> None:
    con.print()
    if ev["status"] == "won":
        con.print(Text(f"Result: {ev['winner']} won in deal {ev['deals_played']}", style="bold green"))
        con.print("Deciding deal: " + ", ".join(f"{p} {n}" for p, n in ev["deciding_tricks"].items()))
    else:
        con.print(Text(f"Result: unfinished after {plural(ev['deals_played'], 'deal')}; no money changes hands",
                       style="bold yellow"))
    if ev["quota_outcomes"]:
        con.print("Quota outcomes: " + ", ".join(f"{p} {n:+d}" for p, n in ev["quota_outcomes"].items()))
    if ev["net"]:
        con.print("Nets: " + ", ".join(f"{p} {money.signed(money.amount(v))}" for p, v in ev["net"].items())
                  + (f" {ev['currency']}" if ev.get("currency") else ""))
        for pay in ev["payments"]:
            con.print(f"  {pay['from']} pays {pay['to']} {pay['amount']}")
    claims = [v for v in ev["violations"] if CODES[v["code"]].shown_at == "result"]
    if claims:
        con.print(Text("Claimed versus replayed:", style="bold"))
        for v in claims:
            con.print(Text("  ! ", style="bold red") + Text(v["message"]))
    errors = [v for v in ev["violations"] if v["severity"] == ERROR]
    con.print(Text(f"{plural(len(errors), 'breach')} found." if errors else "No breach found.",
                   style="bold red" if errors else "bold green"))


def _position_block(con: Console, trace, sym: bool) -> None:
    pos = trace.position
    con.print()
    con.print(Text(f"Before deal {pos.deal}, trick {pos.trick}", style="bold underline")
              + Text("  tricks so far: " + ", ".join(f"{p} {n}" for p, n in zip(trace.data.players, pos.tricks))))
    from .trace import follower_legal, play_over
    rows = follower_legal(trace)
    over = play_over(trace)
    for j, (p, hand, legal, unknown) in enumerate(rows):
        line = Text(f"  {p:<10} held ") + _by_suit(hand, sym)
        if unknown:
            line.append(f"{'  ' if hand else ''}+ {plural(unknown, 'card')} not shown", style="dim")
        elif not hand:
            line.append("nothing", style="dim")
        con.print(line)
        if over:
            continue
        if j == 0:
            con.print(Text(f"             {p} leads: any card is legal", style="dim"))
        elif unknown and trace.position_trick:
            con.print(Text("             legal cards: not known (the hand is not recorded)", style="dim"))
        elif trace.position_trick:
            lead = trace.position_trick[0]
            con.print(Text(f"             legal on the {CANONICAL[lead]} lead: ", style="dim") + _cards(legal, sym))
    if over:
        con.print(Text("  " + _why_over(trace), style="bold"))
    if trace.position_trick:
        played = Text("  recorded: ")
        for j, c in enumerate(trace.position_trick):
            # A trick of more than three cards (TRICK_SIZE) names no one for the extra cards.
            played.append((", " if j else "") + (rows[j][0] + " " if j < len(rows) else ""))
            played.append_text(_card(CANONICAL[c], sym))
        con.print(played)
    for f in trace.result.findings:
        if f.deal == pos.deal and f.trick == pos.trick:
            _print_finding(con, f)


def _why_over(trace) -> str:
    """Why nobody plays at a stopping point after the end of the deal."""
    pos, target = trace.position, trace.data.rules.target
    best = max(range(3), key=lambda seat: pos.tricks[seat])
    if pos.tricks[best] >= target:
        won_at = len(trace.result.deals[pos.deal - 1].winners)
        return (f"play had stopped: {trace.data.players[best]} won the game at trick {won_at}, reaching "
                f"{plural(target, 'trick')}; nobody plays these cards")
    return "the deal had ended: its 16 tricks are played"


def analysis_json(items, out: IO[str] | None = None) -> Summary:
    """One JSON line per analysed game (docs/analysis.md); an unreadable game as its validate line."""
    from .analysis import GameAnalysis, to_dict
    out = out or sys.stdout
    summary = Summary()
    for g in items:
        if isinstance(g, GameAnalysis):
            summary.games += 1
            json_line(to_dict(g), out)
        else:
            summary.add(g)
            json_line(g.to_dict(), out)
    return summary


def analysis_view(items, out: IO[str] | None = None) -> Summary:
    """Each analysed deal: the cards that cost tricks, accuracy per player, where the deal turned."""
    from .analysis import GameAnalysis
    con = console(out)
    summary = Summary()
    for g in items:
        if not isinstance(g, GameAnalysis):
            summary.add(g)
            con.print(game_title(g))
            for f in g.findings:
                con.print(Text("  " + f.text()))
            continue
        summary.games += 1
        con.print(Text(f"Game {shown_id(g.id) if g.id else '(no id)'}", style="bold") + Text(f"  ({g.source})"))
        for d in g.deals:
            _analysed_deal(con, g.players, d)
    return summary


def _analysed_deal(con: Console, players, deal) -> None:
    from .cards import CANONICAL
    head = Text(f"Deal {deal.deal}", style="bold underline")
    head.append(f"  from trick {deal.from_trick}" + ("" if deal.exact else "  (not every play solved in the budget)"))
    con.print(head)
    if not deal.plays:
        con.print(f"  nothing analysed: {deal.stopped or f'no card was played from trick {deal.from_trick} on'}")
        return
    width = max(6, *(len(p) for p in players))
    heading = f"{'trick':>5}  {'player':<{width}}  card  sure before ({' / '.join(players)})  cost  best"
    con.print(Text(heading, style="bold"))
    for p in deal.plays:
        sure = " / ".join("?" if v is None else str(v) for v in p.sure_before)
        cost = "?" if p.cost is None else str(p.cost)
        best = "?" if p.best is None else " ".join(CANONICAL[c] for c in p.best)
        sure_width = 14 + 3 * len(players[0])
        line = Text(f"{p.trick:>5}  {players[p.seat]:<{width}}  {CANONICAL[p.card]:<4}  {sure:<{sure_width}}  ")
        line.append(f"{cost:>4}", style="bold red" if p.cost else "")
        line.append(f"  {best}", style="dim")
        con.print(line)
    for s in range(3):
        cards, cost, acc = deal.player_totals(s)
        if cards:
            con.print(f"  {players[s]}: {plural(cards, 'card')} analysed, {plural(cost, 'trick')} lost, "
                      f"accuracy {rate(acc)}")
    for s, sp in enumerate(deal.split or ()):
        con.print(f"  {players[s]}: {_split_words(sp)}")
    if deal.turned is not None:
        trick, sure_seat = deal.turned
        con.print(f"  The deal turned at trick {trick}: from then on {players[sure_seat]} was sure of the target.")
    if deal.stopped:
        con.print(f"  Analysis stops at {deal.stopped}.")


def _split_words(sp) -> str:
    """One player's deal as par - cost + gifts (+ claim) = tricks, with his luck against the quota."""
    claim = "" if sp.claim is None else f" {'+' if sp.claim >= 0 else '-'} claim {abs(sp.claim)}"
    return (f"par {sp.par} - cost {sp.cost} + gifts {sp.gifts}{claim} = {plural(sp.tricks, 'trick')}"
            f" against a quota of {sp.quota} (luck {sp.luck:+d}, skill {sp.skill:+d})")


def verdict(found, out: IO[str] | None = None) -> None:
    """What `foreman verify` found, one line a difference."""
    con = console(out)
    if found.verified:
        con.print(Text(f"verified: {plural(found.games, 'game')}, the same records and the same ledger",
                       style="bold green"))
        return
    if not found.sealed:
        con.print(Text("the certificate itself was changed after it was written (its hash does not match)",
                       style="bold red"))
    for title, ids in (("certified, but missing from the records", found.missing),
                       ("in the records, but not in the certificate", found.added),
                       ("changed since the certificate was written", found.changed)):
        for gid in ids:
            con.print(Text(f"{gid}: {title}", style="red"))
    for line in found.ledger:
        con.print(Text(f"the ledger would differ: {line}", style="red"))
    for line in found.fields:
        con.print(Text(f"the certificate differs: {line}", style="red"))
    for line in found.in_doubt:
        con.print(Text(f"in doubt: {line}; the certificate can speak only for the first record", style="red"))
    if not found.ledger and found.sealed:
        con.print("the ledger would be the same")
