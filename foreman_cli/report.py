"""The dispute report: one self-contained HTML page of a game's replay, readable and printable by anyone."""

from __future__ import annotations

from html import escape
from typing import Any

from . import money
from .claims import claim_words
from .findings import CODES, ERROR
from .words import plural

_SUIT = {"S": ("♠", "black"), "H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "black")}
_WORD = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}

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
.proof { color: #555; }
.result { border: 1px solid #999; padding: 8px 12px; margin-top: 12px; }
figure.analysis { margin: 6px 0 10px; break-inside: avoid; } figure.analysis svg { width: 100%; max-width: 520px; height: auto; }
figcaption { color: #555; font-size: 10pt; }
@media print { h2 { break-after: avoid; } .deal { break-inside: auto; } tr { break-inside: avoid; }
               a { color: inherit; text-decoration: none; } }
"""


def _card(tok: str) -> str:
    sym, colour = _SUIT[tok[-1]]
    return f'<span class="card {colour}">{escape(tok[:-1])}{sym}</span>'


def _cards(toks) -> str:
    return " ".join(_card(t) for t in toks) or "—"


def _hand(toks) -> str:
    parts = []
    for s in "SHDC":
        ranks = [t for t in toks if t[-1] == s]
        if ranks:
            parts.append(" ".join(_card(t) for t in ranks))
    return " &nbsp; ".join(parts) or "—"


def _finding_id(i: int) -> str:
    return f"finding-{i}"


def _where(f: dict[str, Any]) -> str:
    return ", ".join(f"{k} {f[k]}" for k in ("deal", "pass", "trick") if f.get(k) is not None)


def _finding_html(f: dict[str, Any], anchor: str) -> str:
    cls = "finding" if f["severity"] == ERROR else "finding warning"
    where = _where(f)
    return (f'<div class="{cls}" id="{anchor}"><code>{escape(f["code"])}</code> '
            f'{escape(where) + ": " if where else ""}{escape(f["message"])}'
            f'<br><small>{escape(CODES[f["code"]].rule)}</small></div>')


def dispute_page(t, analyze: bool = False, budget_ms: float | None = None) -> str:
    """The page for a traced game, with every deal analysed first when asked."""
    analysis = None
    if analyze:
        from .analysis import analyze_game
        analysis = analyze_game(t.result, budget_ms=budget_ms)
    return dispute_html(t, analysis)


def dispute_html(t, analysis=None) -> str:
    """The whole page for a traced game (trace.Trace), with the charts of its analysis if given."""
    r = t.result
    P = list(t.data.players)
    rules = t.data.rules
    findings = [e for e in t.events if e["event"] == "finding"]
    ids = {id(e): _finding_id(i + 1) for i, e in enumerate(findings)}
    out: list[str] = []
    w = out.append
    w("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
    w(f"<title>Foreman game {escape(str(r.id))}: dispute report</title>")
    w('<meta name="viewport" content="width=device-width, initial-scale=1">')
    w(f"<style>{CSS}</style></head><body>")
    w(f"<h1>Game {escape(str(r.id))}</h1>")
    stake = f" · stake {escape(money.fmt(r.stake))} {escape(r.currency or '')}" if r.stake is not None else ""
    w(f'<p class="meta">{escape(", ".join(P))} (clockwise) · {escape(r.source)}{stake}<br>'
      f"Rules: quota {escape(rules.quota)}, target {rules.target}, return {escape(rules.return_rule)}, "
      f"kitty {escape(rules.kitty)}, rotation {escape(rules.deal_rotation)}, next dealer {escape(rules.next_dealer)}, "
      f"claims {escape(rules.claim_rule)}</p>")
    errors = [f for f in findings if f["severity"] == ERROR]
    w(f'<div class="summary{"" if errors else " clean"}"><strong>')
    w(f"{plural(len(errors), 'breach')} of the rules found." if errors else "No breach of the rules found.")
    w("</strong>")
    if findings:
        w("<ol>")
        for f in findings:
            where = _where(f)
            w(f'<li><a href="#{ids[id(f)]}"><code>{escape(f["code"])}</code> {escape(where) + ": " if where else ""}'
              f"{escape(f['message'])}</a></li>")
        w("</ol>")
    w(_result_line(t))
    w("</div>")

    pending: list[dict[str, Any]] = []
    in_table = False

    def close_table():
        nonlocal in_table
        if in_table:
            w("</tbody></table>")
            in_table = False

    for ev in t.events:
        kind = ev["event"]
        if kind == "finding":
            if ev.get("trick") is not None and ev["code"] != "PLAY_AFTER_END" and in_table:
                pending.append(ev)
            else:
                close_table()
                w(_finding_html(ev, ids[id(ev)]))
        elif kind == "deal":
            close_table()
            roles = ev["roles"]
            order = sorted(P, key=lambda p: "DLR".index(roles[p]))
            w(f'<section class="deal"><h2>Deal {ev["deal"]}</h2><p>'
              + ", ".join(f"<strong>{escape(p)}</strong> {roles[p]} (quota {ev['quotas'][p]})" for p in order) + "</p>")
            w('<table><tr><th colspan="2">Hands as dealt</th></tr>')
            for p in P:
                w(f"<tr><td>{escape(p)}</td><td>{_hand(ev['hands'][p])}</td></tr>")
            w(f"<tr><td>kitty</td><td>{_cards(ev['kitty'])}</td></tr></table><p><strong>Passes</strong></p><ol>")
        elif kind == "pass":
            before = ev["receiver_suit_before"]
            word = _WORD[ev["card"][-1]]
            proof = (f"{ev['to']} held no {word}, so any card may come back" if not before else
                     f"{ev['to']} held {' '.join(before)} in {word}s")
            w(f"<li>{escape(ev['from'])} gave {_card(ev['card'])} to {escape(ev['to'])}; {escape(ev['to'])} returned "
              f"{_card(ev['returned'])} <span class=\"proof\">({escape(proof)})</span></li>")
        elif kind == "kitty":
            w(f"</ol><p><strong>Kitty:</strong> {escape(ev['dealer'])} took {_cards(ev['kitty'])} and set aside "
              f"{_cards(ev['discards'])}</p><table><tr><th colspan=\"2\">Hands at the first lead</th></tr>")
            for p in P:
                w(f"<tr><td>{escape(p)}</td><td>{_hand(ev['hands'][p])}</td></tr>")
            w("</table>")
            w(_chart(t, analysis, ev["deal"]))
            w("<table><thead><tr><th>trick</th><th>leader</th><th>cards (in play order)</th><th>winner</th>"
              + "".join(f'<th class="num">{escape(p)}</th>' for p in P) + "</tr></thead><tbody>")
            in_table = True
        elif kind == "trick":
            cls = ' class="breach"' if pending else ""
            w(f"<tr{cls}><td class=\"num\">{ev['trick']}</td><td>{escape(ev['leader'])}</td><td>{_cards(ev['cards'])}"
              f"</td><td>{escape(ev['winner'])}</td>" + "".join(f'<td class="num">{ev["tallies"][p]}</td>' for p in P)
              + "</tr>")
            for f in pending:
                w(f'<tr class="breach"><td colspan="{4 + len(P)}">{_finding_html(f, ids[id(f)])}</td></tr>')
            pending.clear()
        elif kind == "claim":
            w(f'<tr class="claim{" breach" if pending or ev["holds"] is False else ""}"><td colspan="{4 + len(P)}">'
              f"{escape(claim_words(ev))}</td></tr>")
            for f in pending:
                w(f'<tr class="breach"><td colspan="{4 + len(P)}">{_finding_html(f, ids[id(f)])}</td></tr>')
            pending.clear()
        elif kind == "result":
            close_table()
            for f in pending:
                w(_finding_html(f, ids[id(f)]))
            pending.clear()
            w('</section><div class="result"><h2>Result</h2>' + _result_block(ev) + "</div>")
    close_table()
    w("</body></html>\n")
    return "\n".join(out)


def _chart(t, analysis, n: int) -> str:
    """The deal's chart of sure tricks, with each player's accuracy under it ('' without analysis)."""
    if analysis is None:
        return ""
    from . import pictures
    d = next((d for d in analysis.deals if d.deal == n), None)
    if d is None or not d.plays:
        return ""
    dr = t.result.deals[n - 1]
    svg = pictures.sure_chart(d, tuple(t.data.players), t.data.rules.target, dr.tricks, dr.claim)
    notes = pictures.accuracy_lines(d, tuple(t.data.players))
    if d.turned is not None:
        notes.append(f"the deal turned at trick {d.turned[0]}: from then on {t.data.players[d.turned[1]]} was sure of "
                     f"the target")
    if not d.exact:
        notes.append("not every play was solved within the budget")
    return (f'<figure class="analysis">{svg}<figcaption>' + "; ".join(escape(x) for x in notes)
            + "</figcaption></figure>")


def _result_line(t) -> str:
    r = t.result
    if r.status == "won":
        return f"<p>{escape(r.winner)} won in deal {r.deals_played}.</p>"
    return f"<p>Unfinished after {plural(r.deals_played, 'deal')}: no money changes hands.</p>"


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
    if ev["net"]:
        parts.append("<table><tr><th>player</th><th class=\"num\">net</th></tr>" + "".join(
            f"<tr><td>{escape(p)}</td><td class=\"num\">{escape(money.signed(money.amount(v)))} "
            f"{escape(ev.get('currency') or '')}</td></tr>"
            for p, v in ev["net"].items()) + "</table>")
        parts.append("<ul>" + "".join(f"<li>{escape(x['from'])} pays {escape(x['to'])} {escape(x['amount'])}</li>"
                                      for x in ev["payments"]) + "</ul>")
    claims = [v for v in ev["violations"] if v["code"] == "CLAIM_MISMATCH"]
    if claims:
        parts.append("<p><strong>Claimed versus replayed</strong></p>" + "".join(
            f'<div class="finding">{escape(v["message"])}</div>' for v in claims))
    return "".join(parts)
