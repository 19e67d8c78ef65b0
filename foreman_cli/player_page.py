"""One player's season as a self-contained HTML page: the terminal report's content, with its charts in inline SVG."""

from __future__ import annotations

from html import escape

from .cards import names
from .player import Lesson, PeriodSplit, PlayerReport
from .report import CSS, card_html, cards_html, hand_html
from .words import head_to_head_title, plural, signed

W, H, PAD = 560, 200, 28
PARTS = (("luck", "#7a9cc6"), ("skill", "#c0504d"), ("gifts", "#9bbb59"), ("claims", "#b58900"))


def split_chart(periods: list[PeriodSplit]) -> str:
    """Per period, bars of luck, skill, gifts and claims from zero (up or down), and a dot at
    their sum: the result against quota."""
    lo = min(0, *(min(getattr(p, f) for f, _ in PARTS) for p in periods), *(p.against_quota for p in periods))
    hi = max(0, *(max(getattr(p, f) for f, _ in PARTS) for p in periods), *(p.against_quota for p in periods))
    span = (hi - lo) or 1
    y = lambda v: PAD + (H - 2 * PAD) * (hi - v) / span  # noqa: E731
    step = (W - 2 * PAD) / len(periods)
    bar = step / (len(PARTS) + 1)
    out = [f'<svg viewBox="0 0 {W} {H}" xmlns="http://www.w3.org/2000/svg" role="img" '
           f'aria-label="luck, skill and gifts by period" class="chart">',
           f'<line x1="{PAD}" x2="{W - PAD}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#888"/>']
    for i, p in enumerate(periods):
        x0 = PAD + i * step
        for j, (f, colour) in enumerate(PARTS):
            v = getattr(p, f)
            top, bottom = sorted((y(v), y(0)))
            out.append(f'<rect x="{x0 + (j + 0.5) * bar:.1f}" y="{top:.1f}" width="{bar * 0.9:.1f}" '
                       f'height="{max(bottom - top, 0.5):.1f}" fill="{colour}"><title>{escape(p.period)}: {f} {v:+d}'
                       "</title></rect>")
        out.append(f'<circle cx="{x0 + step / 2:.1f}" cy="{y(p.against_quota):.1f}" r="4" fill="#1b1b1b">'
                   f"<title>{escape(p.period)}: {p.against_quota:+d} against quota</title></circle>")
        if len(periods) <= 16 or i % (len(periods) // 16 + 1) == 0:
            out.append(f'<text x="{x0 + 2:.1f}" y="{H - 8}" font-size="9" fill="#555">{escape(p.period[-5:])}</text>')
    out.append(f'<text x="2" y="{y(hi) + 4:.1f}" font-size="9" fill="#555">{hi:+d}</text>'
               f'<text x="2" y="{y(lo) + 4:.1f}" font-size="9" fill="#555">{lo:+d}</text></svg>')
    return "".join(out)


def rating_chart(points) -> str:
    """His rating (mu - 3 sigma) after each of his games that someone won, with mu as a faint line above."""
    values = [(p.mu - 3 * p.sigma, p.mu) for p in points]
    lo, hi = min(v[0] for v in values), max(v[1] for v in values)
    span = (hi - lo) or 1
    x = lambda i: PAD + (W - 2 * PAD) * i / max(len(values) - 1, 1)  # noqa: E731
    y = lambda v: PAD + (H - 2 * PAD) * (hi - v) / span  # noqa: E731
    rating = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, (r, _) in enumerate(values))
    mu = " ".join(f"{x(i):.1f},{y(m):.1f}" for i, (_, m) in enumerate(values))
    return (f'<svg viewBox="0 0 {W} {H}" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="rating over time" '
            f'class="chart"><polyline points="{mu}" fill="none" stroke="#bbb"/>'
            f'<polyline points="{rating}" fill="none" stroke="#1f4e79" stroke-width="2"/>'
            f'<text x="2" y="{y(hi) + 4:.1f}" font-size="9" fill="#555">{hi:.1f}</text>'
            f'<text x="2" y="{y(lo) + 4:.1f}" font-size="9" fill="#555">{lo:.1f}</text></svg>')


def _table(res, percent: str | None = None) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in res.columns)
    rows = []
    for row in res.rows:
        cells = []
        for c, v in zip(res.columns, row):
            text = f"{v:.1%}" if c == percent and v is not None else "" if v is None else str(v)
            cells.append(f'<td class="num">{escape(text)}</td>' if isinstance(v, (int, float)) else f"<td>{escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f'<div class="scroll"><table><tr>{head}</tr>{"".join(rows)}</table></div>'


def _lesson(lesson: Lesson) -> str:
    players = lesson.players
    mover = escape(players[lesson.seat])
    so_far = ", ".join(f"{escape(players[s])} {card_html(names([c])[0])}" for s, c in lesson.trick_so_far) or \
        f"{mover} to lead"
    kept = "would each have kept" if len(lesson.best) > 1 else "would have kept"
    return (f'<li class="lesson"><b>{escape(lesson.game_id)}</b>, deal {lesson.deal}, trick {lesson.trick}<br>'
            f"{mover}'s hand: {hand_html(names(lesson.hand))}<br>"
            + "".join(f"{escape(players[s])}: {hand_html(names(cards))}<br>" for s, cards in lesson.others)
            + f"The trick so far: {so_far}<br>"
            f"{mover} played {card_html(names([lesson.played])[0])}: sure of {plural(lesson.made, 'trick')} after it; "
            f"{cards_html(names(lesson.best))} {kept} {lesson.sure_before} (cost {lesson.cost}).</li>")


def page(season: PlayerReport) -> str:
    """The whole page."""
    out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
           f"<title>Foreman: {escape(season.name)}'s season</title>",
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<style>{CSS}\nsvg.chart{{width:100%;max-width:560px;height:auto}} li.lesson{{margin:6px 0}}"
           ".key span{margin-right:10px}</style></head><body>",
           f"<h1>{escape(season.name)}</h1>"
           f"<p class=\"meta\">{plural(season.games, 'game')}, {plural(season.wins, 'win')}</p>",
           '<h2 id="luck">Luck and skill</h2>']
    if season.totals is None:
        out.append(f"<p>No deal of {escape(season.name)}'s was wholly analysed "
                   "(foreman load --analyze costs every card).</p>")
    else:
        totals = season.totals
        out.append(f"<p>Over {plural(totals.deals, 'wholly analysed deal')}: {totals.against_quota:+d} against quota = "
                   f"luck {totals.luck:+d} + skill {totals.skill:+d} + gifts {totals.gifts:+d} "
                   f"+ claims {totals.claims:+d}.</p>")
        out.append("<p>Luck against the field (par above the archive's mean for the same role): "
                   f"{signed(totals.vs_field / totals.deals)} "
                   "a deal. Luck itself is below zero for everyone: par is what a player was sure of against perfect play.</p>")
        out.append(split_chart(season.periods))
        out.append('<p class="key">' + "".join(f'<span style="color:{c}">■ {f}</span>' for f, c in PARTS)
                   + "<span>● against quota</span></p>")
    if season.rating:
        last = season.rating[-1]
        out += ['<h2 id="rating">Rating over time</h2>', rating_chart(season.rating),
                f"<p>Now {last.mu - 3 * last.sigma:.2f} (mu {last.mu:.2f}, sigma {last.sigma:.2f}) after "
                f"{escape(season.name)}'s {plural(len(season.rating), 'game')} with a winner; the dark line is "
                "mu - 3 sigma, the light one mu.</p>"]
    for anchor, title, res in (("roles", "Accuracy by role", season.by_role),
                               ("tricks", "Accuracy by trick of the deal", season.by_trick),
                               ("rivals", head_to_head_title(season.name), season.head_to_head)):
        if res.rows:
            out += [f'<h2 id="{anchor}">{escape(title)}</h2>', _table(res, "accuracy")]
    if season.lessons:
        out += ['<h2 id="lessons">Positions to learn from</h2><ol>', *map(_lesson, season.lessons), "</ol>"]
    out.append("</body></html>\n")
    return "\n".join(out)
