"""The dispute report: one self-contained HTML page of a game's replay, readable and printable by anyone."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from . import money
from .claims import claim_words
from .events import CardPlayed, ClaimJudged, DealStarted, FindingMade, GameEnded, KittyExchanged, PassMade, TrickWon, Visitor
from .findings import CODES, ERROR, Finding
from .trace import pass_proof
from .words import plural

_SUIT = {"S": ("♠", "black"), "H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "black")}

CSS = """
@page { size: A4; margin: 14mm; }
* { box-sizing: border-box; }
body { font: 11pt/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1b1b1b;
       max-width: 190mm; margin: 0 auto; padding: 12px; }
h1 { font-size: 17pt; margin: 0 0 4px; } h2 { font-size: 13pt; margin: 18px 0 6px; border-bottom: 1px solid #ccc; }
.meta { color: #555; margin: 0 0 10px; }
.card { display: inline-block; min-width: 2.4em; padding: 0 3px; margin: 1px; border: 1px solid #bbb;
        border-radius: 3px; background: #fff; text-align: center; font-weight: 600; white-space: nowrap; }
.card.red { color: #c00000; } .card.black { color: #111; }
table { border-collapse: collapse; margin: 4px 0 8px; }
td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
th { font-weight: 600; background: #f4f4f4; } td.num { text-align: right; }
.finding { background: #fff0f0; border-left: 4px solid #c00000; padding: 4px 8px; margin: 4px 0; }
.finding.warning { background: #fffbe6; border-left-color: #b58900; }
.finding code, .summary code { font-weight: 700; }
tr.breach td { background: #fff0f0; }
.summary { border: 2px solid #c00000; padding: 8px 12px; margin: 10px 0; }
.summary.clean { border-color: #2e7d32; }
.doubt { color: #c00000; }
.proof { color: #555; } li.note { list-style: none; }
.result { border: 1px solid #999; padding: 8px 12px; margin-top: 12px; }
figure.analysis { margin: 6px 0 10px; break-inside: avoid; } figure.analysis svg { width: 100%; max-width: 520px; height: auto; }
figcaption { color: #555; font-size: 10pt; }
.play { white-space: nowrap; margin-right: 6px; } .play small { color: #555; }
.offending .card, .card.offending { outline: 3px solid #c00000; background: #ffe0e0; }
.card.legal { border-color: #2e7d32; box-shadow: inset 0 -3px 0 #9ccc9c; } .card.chosen { outline: 2px solid #1b1b1b; }
.table-picture { width: 260px; max-width: 100%; height: auto; display: block; margin: 4px 0; }
nav.deals a { margin-right: 10px; }
.scroll { overflow-x: auto; }
.js-only { display: none; } .js .js-only { display: block; }
#step-through .controls button { font: inherit; padding: 4px 10px; margin: 2px 4px 2px 0; }
.step-hand { margin: 4px 0; }
@media (max-width: 520px) { body { font-size: 10pt; padding: 6px; } td, th { padding: 2px 4px; }
                            .card { min-width: 2em; } }
@media print { h2 { break-after: avoid; } .deal { break-inside: auto; } tr { break-inside: avoid; }
               a { color: inherit; text-decoration: none; } nav.deals, #step-through, .js .js-only { display: none; }
               .scroll { overflow: visible; } }
"""


def card_html(tok: str) -> str:
    sym, colour = _SUIT[tok[-1]]
    return f'<span class="card {colour}">{escape(tok[:-1])}{sym}</span>'


def cards_html(toks) -> str:
    return " ".join(card_html(token) for token in toks) or "—"


def hand_html(toks) -> str:
    parts = []
    for s in "SHDC":
        ranks = [token for token in toks if token[-1] == s]
        if ranks:
            parts.append(" ".join(card_html(token) for token in ranks))
    return " &nbsp; ".join(parts) or "—"


def _finding_id(index: int) -> str:
    return f"finding-{index}"


def _finding_html(finding: Finding, anchor: str) -> str:
    cls = "finding" if finding.severity == ERROR else "finding warning"
    return (f'<div class="{cls}" id="{anchor}"><code>{escape(finding.code)}</code> '
            f'{escape(finding.place) + ": " if finding.place else ""}{escape(finding.message)}'
            f'<br><small>{escape(CODES[finding.code].rule)}</small></div>')


def dispute_page(trace, analyze: bool = False, budget: int | None = None, on_deal=None, jobs: int = 1) -> str:
    """The page for a traced game, with every deal analysed first when asked (`on_deal` is told of
    each), over `jobs` worker processes."""
    analysis = None
    if analyze:
        from .analysis import analyze_game
        analysis = analyze_game(trace.result, budget=budget, on_deal=on_deal, jobs=jobs)
    return dispute_html(trace, analysis)


def dispute_html(trace, analysis=None) -> str:
    """The whole page for a traced game (trace.Trace), with the charts of its analysis if given."""
    page = _Page(trace, analysis)
    for e in trace.events:
        page.visit(e)
    page.close_table()
    page.close_section()
    _attach_findings(page.steps, page.findings)
    page.out.insert(page.stepper_at, _stepper(page.steps))  # under the summary, once every trick is known
    page.write("</main></body></html>\n")
    return "\n".join(page.out)


class _Page(Visitor):
    """The page as it is written, event by event: each kind of event has its handler."""

    def __init__(self, trace, analysis) -> None:
        self.trace, self.analysis = trace, analysis
        self.players = tuple(trace.data.players)
        self.n_deals = sum(1 for e in trace.events if e.kind == "deal")
        self.findings: list[Finding] = [e.finding for e in trace.events if e.kind == "finding"]
        self.ids = {id(e): _finding_id(i + 1) for i, e in enumerate(self.findings)}
        self.out: list[str] = []
        self.write = self.out.append
        self.pending: list[Finding] = []
        self.in_table = False
        self.in_section = False
        self.in_passes = False
        self.passes_due = False  # the passes' heading is written at the first pass (or the kitty, full records)
        self.hands: dict[str, list[str]] = {}
        self.unknown: dict[str, int] = {}
        self.plays: list[CardPlayed] = []
        self.steps: list[dict[str, Any]] = []  # the step-through: the table before each trick
        self._head()

    def _head(self) -> None:
        trace, result, write = self.trace, self.trace.result, self.write
        rules = trace.data.rules
        write("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        write(f"<title>Foreman game {escape(str(result.id))}: dispute report</title>")
        write('<meta name="viewport" content="width=device-width, initial-scale=1">')
        write(f"<style>{CSS}</style></head><body><main>")
        write(f"<h1>Game {escape(str(result.id))}</h1>")
        stake = "" if result.stake is None else \
            f" · stake {escape(money.fmt(result.stake))} {escape(result.currency or '')}"
        write(f'<p class="meta">{escape(", ".join(self.players))} (clockwise) · {escape(result.source)}{stake}<br>'
          f"Rules: quota {escape(rules.quota)}, target {rules.target}, return {escape(rules.return_rule)}, "
          f"kitty {escape(rules.kitty)}, rotation {escape(rules.deal_rotation)}, next dealer "
          f"{escape(rules.next_dealer)}, claims {escape(rules.claim_rule)}</p>")
        for line in trace.doubts:
            write(f'<p class="doubt"><strong>In doubt:</strong> {escape(line)}; this page shows the first record</p>')
        errors = [f for f in self.findings if f.severity == ERROR]
        write(f'<div class="summary{"" if errors else " clean"}"><strong>')
        write(f"{plural(len(errors), 'breach')} of the rules found." if errors else "No breach of the rules found.")
        write("</strong>")
        if self.findings:
            write("<ol>")
            for f in self.findings:
                write(f'<li><a href="#{self.ids[id(f)]}"><code>{escape(f.code)}</code> '
                  f"{escape(f.place) + ': ' if f.place else ''}{escape(f.message)}</a></li>")
            write("</ol>")
        write(_result_line(trace))
        write(f'<p class="money"><strong>Money:</strong> {escape(money_status(result))}</p>')
        if any(e.kind == "play" for e in trace.events):
            write('<p class="js-only"><a href="#step-through">Step through the play</a> '
              "(keys ← →, B for the first finding)</p>")
        write("</div>")
        for f in self.findings:
            if CODES[f.code].shown_at == "game":
                self.write(_finding_html(f, self.ids[id(f)]))
        self.stepper_at = len(self.out)

    def close_table(self) -> None:
        self.close_passes()
        if self.in_table:
            self.write("</tbody></table></div>")
            self.in_table = False

    def close_passes(self) -> None:
        if self.in_passes:
            self.write("</ol>")
            self.in_passes = False

    def close_section(self) -> None:
        self.close_table()
        if self.in_section:
            self.write("</section>")
            self.in_section = False

    def on_finding(self, event: FindingMade) -> None:
        f = event.finding
        if CODES[f.code].shown_at in ("game", "dealer") and f.trick is None:
            return  # written at the top, or at the deal's dealer line
        if f.trick is not None and CODES[f.code].shown_at == "place" and self.in_table:
            self.pending.append(f)
        elif self.in_passes:  # a finding of a pass, under it in the list
            self.write(f'<li class="note">{_finding_html(f, self.ids[id(f)])}</li>')
        else:
            self.close_table()
            self.write(_finding_html(f, self.ids[id(f)]))

    def on_deal(self, event: DealStarted) -> None:
        self.close_section()
        ev = event.to_dict(self.players)  # the event in words
        deal, roles = ev["deal"], ev["roles"]
        order = sorted(self.players, key=lambda p: "DLR".index(roles[p]))
        nav = " · ".join(x for x in (
            f'<a href="#deal-{deal - 1}">← deal {deal - 1}</a>' if deal > 1 else "",
            f'<a href="#deal-{deal + 1}">deal {deal + 1} →</a>' if deal < self.n_deals else "") if x)
        self.write(f'<section class="deal" id="deal-{deal}" aria-labelledby="deal-{deal}-title"><h2 id="deal-{deal}-title">'
               f'Deal {deal} <small>of {self.n_deals}</small></h2>'
               + (f'<nav class="deals" aria-label="deals">{nav}</nav>' if nav else ""))
        self.in_section = True
        self.write(_table_picture(self.players, ev))
        self.write('<p class="dealer-line">' + ", ".join(
            f"<strong>{escape(p)}</strong> {roles[p]} (quota {ev['quotas'][p]})" for p in order)
            + f"; {escape(ev['dealer'])} deals</p>")
        for f in self.findings:
            if CODES[f.code].shown_at == "dealer" and f.deal == deal and f.trick is None:
                self.write(_finding_html(f, self.ids[id(f)]))
        if ev["hands"] is None:
            self.write("<p><strong>Hands as dealt:</strong> not recorded (a record of the play)</p>")
        else:
            self.write('<table><tr><th colspan="2" scope="colgroup">Hands as dealt</th></tr>')
            for p in self.players:
                self.write(f'<tr><th scope="row">{escape(p)}</th><td>{hand_html(ev["hands"][p])}</td></tr>')
            self.write(f'<tr><th scope="row">kitty</th><td>{cards_html(ev["kitty"])}</td></tr></table>')
        self.passes_due = True

    def _passes_open(self) -> None:
        if self.passes_due:
            self.write("<p><strong>Passes</strong></p><ol>")
            self.in_passes, self.passes_due = True, False

    def on_pass(self, event: PassMade) -> None:
        proof = pass_proof(event, self.trace.data.rules.return_rule, self.players)
        self._passes_open()
        ev = event.to_dict(self.players)
        self.write(f'<li value="{ev["pass"]}">{escape(ev["from"])} gave {card_html(ev["card"])} to {escape(ev["to"])}; '
               f"{escape(ev['to'])} returned {card_html(ev['returned'])} <span class=\"proof\">({escape(proof)})</span></li>")

    def on_kitty(self, event: KittyExchanged) -> None:
        if event.unknown is None:  # a full record lists its passes, even none, under their heading
            self._passes_open()
        self.close_passes()
        ev = event.to_dict(self.players)
        unknown = ev.get("unknown") or {p: 0 for p in self.players}
        kitty = "the kitty (not recorded)" if ev["kitty"] is None else cards_html(ev["kitty"])
        discards = "the discards (not recorded)" if ev["discards"] is None else cards_html(ev["discards"])
        title = "Hands at the first lead" + ("" if event.unknown is None else ", as far as the record shows them")
        self.write(f"<p><strong>Kitty:</strong> {escape(ev['dealer'])} took {kitty} and set aside "
               f'{discards}</p><table><tr><th colspan="2" scope="colgroup">{title}</th></tr>')
        for p in self.players:
            more = f' <span class="proof">+ {plural(unknown[p], "card")} not shown</span>' if unknown[p] else ""
            self.write(f'<tr><th scope="row">{escape(p)}</th><td>{hand_html(ev["hands"][p])}{more}</td></tr>')
        self.write("</table>")
        self.write(_chart(self.trace, self.analysis, event.deal))
        self.write('<div class="scroll"><table class="tricks"><thead><tr><th scope="col">trick</th>'
               '<th scope="col">cards, in play order</th><th scope="col">winner</th>'
               + "".join(f'<th scope="col" class="num">{escape(p)}</th>' for p in self.players)
               + "</tr></thead><tbody>")
        self.in_table = True
        self.hands = {p: list(ev["hands"][p]) for p in self.players}
        self.unknown = dict(unknown)
        self.plays = []

    def on_play(self, event: CardPlayed) -> None:
        self.plays.append(event.to_dict(self.players))

    def on_trick(self, event: TrickWon) -> None:
        ev = event.to_dict(self.players)
        bad = {(f.player, f.card) for f in self.pending}
        cls = ' class="breach"' if self.pending else ""
        played = " ".join(_played(p["player"], p["card"], (p["player"], p["card"]) in bad) for p in self.plays)
        self.write(f'<tr{cls} id="d{ev["deal"]}t{ev["trick"]}"><td class="num">{ev["trick"]}</td><td>{played}</td>'
               f"<td>{escape(ev['winner'])}</td>"
               + "".join(f'<td class="num">{ev["tallies"][p]}</td>' for p in self.players) + "</tr>")
        self._step(ev, bad)
        self._flush_pending()

    def _step(self, ev: dict[str, Any], bad: set) -> None:
        self.steps.append({
            "deal": ev["deal"], "trick": ev["trick"], "winner": ev["winner"],
            "hands": {p: list(h) for p, h in self.hands.items()}, "unknown": dict(self.unknown),
            "plays": [{"player": p["player"], "card": p["card"], "legal": p["legal"],
                       "breach": (p["player"], p["card"]) in bad} for p in self.plays],
            "findings": [],
            "before": {p: n - (p == ev["winner"]) for p, n in ev["tallies"].items()}})
        for p in self.plays:
            if p["card"] in self.hands[p["player"]]:
                self.hands[p["player"]].remove(p["card"])
            elif self.unknown[p["player"]]:  # a card of the part of his hand the record does not show
                self.unknown[p["player"]] -= 1
        self.plays = []

    def _flush_pending(self) -> None:
        for f in self.pending:
            breach = _finding_html(f, self.ids[id(f)])
            self.write(f'<tr class="breach"><td colspan="{3 + len(self.players)}">{breach}</td></tr>')
        self.pending.clear()

    def on_claim(self, event: ClaimJudged) -> None:
        ev = event.to_dict(self.players)
        words = claim_words(ev)
        if not self.in_table:  # a claim before any trick of the deal was recorded
            self.write('<div class="scroll"><table class="tricks"><tbody>')
            self.in_table = True
        self.write(f'<tr class="claim{" breach" if self.pending or ev["holds"] is False else ""}" id="d{ev["deal"]}claim">'
               f'<td colspan="{3 + len(self.players)}">{escape(words)}</td></tr>')
        # The step-through's last step of the deal: the hands as they stood at the claim.
        self.steps.append({"deal": ev["deal"], "trick": ev["trick"], "winner": None, "claim": words,
                           "hands": {p: list(h) for p, h in self.hands.items()}, "unknown": dict(self.unknown),
                           "plays": [], "findings": [],
                           "before": dict(ev["tallies"])})
        self._flush_pending()

    def on_result(self, ev: GameEnded) -> None:
        self.close_table()
        for f in self.pending:
            self.write(_finding_html(f, self.ids[id(f)]))
        self.pending.clear()
        self.close_section()
        self.write('<section class="result" aria-labelledby="result-title"><h2 id="result-title">Result</h2>'
               + _result_block(ev.result) + "</section>")


def _attach_findings(steps: list[dict[str, Any]], findings: list[Finding]) -> None:
    """Give each step of the step-through the findings that have a place at it: the step of their
    trick (a claim's step for a claim's), or the first step of their deal for a pass or the kitty."""
    for f in findings:
        if f.deal is None:
            continue
        in_deal = [s for s in steps if s["deal"] == f.deal]
        if not in_deal:
            continue
        at = in_deal[0] if f.trick is None else next((s for s in in_deal if s["trick"] >= f.trick), in_deal[-1])
        at["findings"].append(f"{f.code}: {f.message}")


def money_status(result) -> str:
    """Whether the game's money is counted in a settlement, and why not."""
    if result.status != "won":
        return "none changes hands: the game is unfinished."
    disputes = result.disputes
    if disputes:
        codes = sorted({f.code for f in disputes})
        return (f"left out of the settlement: {plural(len(disputes), 'breach')} of play "
                f"({', '.join(codes)}) {'disputes' if len(disputes) == 1 else 'dispute'} the game.")
    if any(CODES[f.code].shown_at == "result" for f in result.findings):
        return "counted in the settlement as the rules pay it (the table's figures differ: see the result)."
    return "counted in the settlement."


def _played(player: str, card: str, bad: bool) -> str:
    return (f'<span class="play{" offending" if bad else ""}"><small>{escape(player)}</small> '
            f"{card_html(card)}</span>")


def _table_picture(players: tuple[str, ...], ev: dict[str, Any]) -> str:
    """The table from above: three seats clockwise, each with its role and quota, the dealer marked."""
    spots = ((130, 24), (206, 118), (54, 118))  # seats 1, 2, 3 clockwise from the top
    parts = ['<svg class="table-picture" viewBox="0 0 260 150" role="img" aria-label="the table">',
             '<ellipse cx="130" cy="78" rx="70" ry="40" fill="#e8f2e8" stroke="#6a8f6a"/>']
    for p, (x, y) in zip(players, spots):
        role = ev["roles"][p]
        dealer = ev["dealer"] == p
        parts.append(f'<g class="seat{" dealer" if dealer else ""}"><rect x="{x - 44}" y="{y - 16}" width="88" '
                     f'height="30" rx="5" fill="{"#fff3c4" if dealer else "#fff"}" stroke="#888"/>'
                     f'<text x="{x}" y="{y - 2}" text-anchor="middle" font-size="11" font-weight="600">'
                     f"{escape(p[:14])}</text>"
                     f'<text x="{x}" y="{y + 10}" text-anchor="middle" font-size="9">{role} · quota '
                     f'{ev["quotas"][p]}{" · dealer" if dealer else ""}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _stepper(steps: list[dict[str, Any]]) -> str:
    """The step-through: the table before each trick, moved by buttons and keys (plain script, offline)."""
    if not steps:
        return ""
    data = json.dumps(steps, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
    return (f'<section id="step-through" class="js-only"><h2>Step through the play</h2>'
            '<div class="controls"><button type="button" id="prev">← previous</button> '
            '<button type="button" id="next">next →</button> '
            '<button type="button" id="breach">first finding</button> <span id="where"></span></div>'
            '<div id="step-hands"></div><p id="step-trick"></p><div id="step-findings"></div></section>'
            f'<script type="application/json" id="steps">{data}</script>'
            f'<script id="step-through-script">{STEP_JS}</script>')


STEP_JS = """
(function () {
  var steps = JSON.parse(document.getElementById('steps').textContent), at = 0;
  var SUIT = {S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663'};
  document.documentElement.classList.add('js');
  function card(tok, cls) {
    var s = document.createElement('span'), suit = tok.slice(-1);
    s.className = 'card ' + (suit === 'H' || suit === 'D' ? 'red' : 'black') + (cls ? ' ' + cls : '');
    s.textContent = tok.slice(0, -1) + SUIT[suit];
    s.setAttribute('data-card', tok);
    return s;
  }
  function show(i) {
    at = Math.max(0, Math.min(steps.length - 1, i));
    var st = steps[at], box = document.getElementById('step-hands');
    document.getElementById('where').textContent = 'deal ' + st.deal + ', before trick ' + st.trick +
      ' (' + (at + 1) + ' of ' + steps.length + ')';
    box.textContent = '';
    var order = st.plays.length ? st.plays.map(function (p) { return p.player; }) : Object.keys(st.hands);
    order.forEach(function (who) {
      var p = st.plays.filter(function (q) { return q.player === who; })[0] || {legal: [], card: null};
      var row = document.createElement('div'), name = document.createElement('strong');
      row.className = 'step-hand'; row.setAttribute('data-player', who);
      var n = st.before[who];
      name.textContent = who + ' (' + n + (n === 1 ? ' trick' : ' tricks') + ' so far): ';
      row.appendChild(name);
      st.hands[who].forEach(function (c) {
        var cls = [];
        if (p.legal.indexOf(c) >= 0) cls.push('legal');
        if (c === p.card) cls.push(p.breach ? 'offending' : 'chosen');
        row.appendChild(card(c, cls.join(' ')));
        row.appendChild(document.createTextNode(' '));
      });
      if (st.unknown[who]) {
        row.appendChild(document.createTextNode('+ ' + st.unknown[who] + ' not shown '));
      }
      if (p.card && st.hands[who].indexOf(p.card) < 0) {
        row.appendChild(document.createTextNode(p.breach ? ' played, not held: ' : ' played: '));
        row.appendChild(card(p.card, p.breach ? 'offending' : 'chosen'));
      }
      box.appendChild(row);
    });
    var line = document.getElementById('step-trick');
    if (st.claim) {
      line.textContent = 'Claim at trick ' + st.trick + ': ' + st.claim;
    } else {
      line.textContent = 'Trick ' + st.trick + ': ';
      st.plays.forEach(function (p, j) {
        line.appendChild(document.createTextNode((j ? ', ' : '') + p.player + ' '));
        line.appendChild(card(p.card, p.breach ? 'offending' : ''));
      });
      line.appendChild(document.createTextNode('; ' + st.winner + ' wins.'));
    }
    var fs = document.getElementById('step-findings');
    fs.textContent = '';
    st.findings.forEach(function (f) {
      var d = document.createElement('div'); d.className = 'finding'; d.textContent = f; fs.appendChild(d);
    });
  }
  function firstBreach() {
    for (var i = 0; i < steps.length; i++) if (steps[i].findings.length) return show(i);
  }
  document.getElementById('prev').onclick = function () { show(at - 1); };
  document.getElementById('next').onclick = function () { show(at + 1); };
  document.getElementById('breach').onclick = firstBreach;
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowLeft') show(at - 1);
    else if (e.key === 'ArrowRight') show(at + 1);
    else if (e.key === 'Home') show(0);
    else if (e.key === 'End') show(steps.length - 1);
    else if (e.key === 'b' || e.key === 'B') firstBreach();
  });
  show(0);
})();
"""


def _chart(trace, analysis, deal_number: int) -> str:
    """The deal's chart of sure tricks, with each player's accuracy under it ('' without analysis)."""
    if analysis is None:
        return ""
    from . import pictures
    deal = next((d for d in analysis.deals if d.deal == deal_number), None)
    if deal is None or not deal.plays:
        return ""
    dr = trace.result.deals[deal_number - 1]
    svg = pictures.sure_chart(deal, tuple(trace.data.players), trace.data.rules.target, dr.tricks, dr.claim)
    notes = pictures.accuracy_lines(deal, tuple(trace.data.players))
    if deal.turned is not None:
        trick, sure_seat = deal.turned
        notes.append(f"the deal turned at trick {trick}: from then on {trace.data.players[sure_seat]} was sure of "
                     f"the target")
    if not deal.exact:
        notes.append("not every play was solved within the budget")
    return (f'<figure class="analysis">{svg}<figcaption>' + "; ".join(escape(x) for x in notes)
            + "</figcaption></figure>")


def _result_line(trace) -> str:
    result = trace.result
    if result.status == "won":
        return f"<p>{escape(result.winner)} won in deal {result.deals_played}.</p>"
    return f"<p>Unfinished after {plural(result.deals_played, 'deal')}: no money changes hands.</p>"


def _result_block(ev: dict[str, Any]) -> str:
    parts = []
    if ev["status"] == "won":
        parts.append(f"<p><strong>{escape(ev['winner'])}</strong> won in deal {ev['deals_played']}. Deciding deal: "
                     + ", ".join(f"{escape(p)} {n}" for p, n in ev["deciding_tricks"].items()) + "</p>")
    else:
        parts.append(f"<p>Unfinished after {plural(ev['deals_played'], 'deal')}: no money changes hands.</p>")
    if ev["quota_outcomes"]:
        parts.append("<p>Quota outcomes: " + ", ".join(f"{escape(p)} {n:+d}" for p, n in ev["quota_outcomes"].items())
                     + "</p>")
    disputed = sorted({v["code"] for v in ev["violations"] if v["severity"] == ERROR and CODES[v["code"]].disputes})
    if ev["net"] and disputed:
        parts.append(f'<p class="finding"><strong>Not owed:</strong> the game is disputed ({escape(", ".join(disputed))}); '
                     "the payments below are what the replay computes, owed only once the dispute is settled.</p>")
    if ev["net"]:
        parts.append('<table><tr><th scope="col">player</th><th scope="col" class="num">net</th></tr>' + "".join(
            f'<tr><th scope="row">{escape(p)}</th><td class="num">{escape(money.signed(money.amount(v)))} '
            f"{escape(ev.get('currency') or '')}</td></tr>"
            for p, v in ev["net"].items()) + "</table>")
        parts.append("<ul>" + "".join(f"<li>{escape(x['from'])} pays {escape(x['to'])} {escape(x['amount'])}</li>"
                                      for x in ev["payments"]) + "</ul>")
    claims = [v for v in ev["violations"] if CODES[v["code"]].shown_at == "result"]
    if claims:
        parts.append("<p><strong>Claimed versus replayed</strong></p>" + "".join(
            f'<div class="finding">{escape(v["message"])}</div>' for v in claims))
    return "".join(parts)
