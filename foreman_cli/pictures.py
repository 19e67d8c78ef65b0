"""Inline SVG pictures of an analysed deal: each player's sure tricks trick by trick, costly cards marked."""

from __future__ import annotations

from html import escape

from .analysis import DealAnalysis
from .cards import CANONICAL
from .words import plural

COLOURS = ("#1f5fa8", "#c0392b", "#2e7d32")  # by seat; each line also carries its name
W, H = 520, 210
LEFT, RIGHT, TOP, BOTTOM = 34, 96, 14, 30


def sure_chart(deal: DealAnalysis, players: tuple[str, ...], target: int, final: list[int],
               claim=None) -> str:
    """One deal's chart: x the trick, y the tricks each player is sure of at its start."""
    starts: dict[int, tuple] = {}
    for p in deal.plays:
        starts.setdefault(p.trick, p.sure_before)
    if not starts:
        return ""
    first = min(starts)
    # The last point is the deal's end: after the last trick analysed, or after the claimed ones.
    end = claim.first_trick + claim.tricks if claim is not None else max(starts) + 1
    span = max(1, end - first)
    top = max(target, max(final)) or 1

    def x(t: float) -> float:
        return LEFT + (t - first) * (W - LEFT - RIGHT) / span

    def y(v: float) -> float:
        return TOP + (top - v) * (H - TOP - BOTTOM) / top

    out = [f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" xmlns="http://www.w3.org/2000/svg" '
           f'aria-label="Deal {deal.deal}: tricks each player is sure of, trick by trick">']
    out.append(_axes(first, end, top, target, x, y))
    for s in range(3):
        pts = [(x(t), y(v[s])) for t, v in sorted(starts.items()) if v[s] is not None]
        pts.append((x(end), y(final[s])))
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
        out.append(f'<polyline fill="none" stroke="{COLOURS[s]}" stroke-width="2" points="{path}"/>')
        out.append(f'<text x="{x(end) + 6:.1f}" y="{pts[-1][1] + 4 + 11 * (s - 1):.1f}" fill="{COLOURS[s]}" '
                   f'font-size="11">{escape(players[s])} {final[s]}</text>')
    out.extend(_costly(deal, players, starts, x, y))
    if claim is not None and claim.tricks:
        verdict = {True: "holds", False: "fails", None: "not judged"}[claim.holds]
        cx = x(claim.first_trick)
        out.append(f'<line x1="{cx:.1f}" y1="{TOP}" x2="{cx:.1f}" y2="{H - BOTTOM}" stroke="#555" '
                   f'stroke-dasharray="4 3"/><text x="{cx + 3:.1f}" y="{TOP + 10}" font-size="10" fill="#555">'
                   f'{escape(players[claim.by])} claims: {verdict}</text>')
    out.append("</svg>")
    return "".join(out)


def _axes(first: int, end: int, top: int, target: int, x, y) -> str:
    parts = [f'<line x1="{LEFT}" y1="{y(0):.1f}" x2="{x(end):.1f}" y2="{y(0):.1f}" stroke="#999"/>',
             f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{y(0):.1f}" stroke="#999"/>',
             f'<line x1="{LEFT}" y1="{y(target):.1f}" x2="{x(end):.1f}" y2="{y(target):.1f}" stroke="#999" '
             f'stroke-dasharray="2 3"/><text x="4" y="{y(target) + 4:.1f}" font-size="10" fill="#555">{target}</text>',
             f'<text x="4" y="{y(0) + 4:.1f}" font-size="10" fill="#555">0</text>']
    for t in range(first, end + 1):
        parts.append(f'<text x="{x(t) - 4:.1f}" y="{H - BOTTOM + 14}" font-size="10" fill="#555">{t}</text>')
    parts.append(f'<text x="{LEFT}" y="{H - 4}" font-size="10" fill="#555">trick (sure tricks at its start; '
                 f'red: a card that cost tricks)</text>')
    return "".join(parts)


def _costly(deal: DealAnalysis, players, starts, x, y) -> list[str]:
    out = []
    for p in deal.plays:
        if not p.cost:
            continue
        v = p.sure_before[p.seat]
        best = " ".join(CANONICAL[c] for c in p.best or ())
        tip = f"trick {p.trick}: {players[p.seat]} played {CANONICAL[p.card]}, cost {plural(p.cost, 'trick')} (best: {best})"
        out.append(f'<circle class="costly" cx="{x(p.trick + 0.5):.1f}" cy="{y(v):.1f}" r="4.5" fill="#c00000">'
                   f"<title>{escape(tip)}</title></circle>")
    return out


def accuracy_lines(deal: DealAnalysis, players: tuple[str, ...]) -> list[str]:
    """Per player: cards analysed, tricks their cards cost, accuracy (as text)."""
    out = []
    for s in range(3):
        cards, cost, acc = deal.player_totals(s)
        if cards:
            out.append(f"{players[s]}: {plural(cards, 'card')}, {plural(cost, 'trick')} lost, accuracy {acc:.1%}")  # as render.rate shows every rate
    return out
