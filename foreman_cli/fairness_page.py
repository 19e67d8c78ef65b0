"""The fairness screen as one self-contained HTML page, each distribution drawn in inline SVG."""

from __future__ import annotations

from html import escape

from .fairness import CORRECTION_NAMES, Screen, Test, verdicts
from .words import plural

W, H, PAD = 300, 120, 22


def _chart(test: Test) -> str:
    """Bars: the chance of each per-deal value; dots: how often it was dealt."""
    if not test.values or not test.null:
        return ""
    n = len(test.values)
    seen = [test.values.count(k) / n for k in range(len(test.null))]
    top = max(max(test.null), max(seen)) or 1
    lo = min(k for k, p in enumerate(test.null) if p > 1e-4 or seen[k])
    hi = max(k for k, p in enumerate(test.null) if p > 1e-4 or seen[k])
    step = (W - 2 * PAD) / (hi - lo + 1)
    parts = [f'<svg viewBox="0 0 {W} {H}" xmlns="http://www.w3.org/2000/svg" role="img" '
             f'aria-label="{escape(test.player)}, {escape(test.test)} as {test.as_}: dealt against chance">']
    for k in range(lo, hi + 1):
        x = PAD + (k - lo) * step
        h = (H - 2 * PAD) * test.null[k] / top
        parts.append(f'<rect x="{x + 2:.1f}" y="{H - PAD - h:.1f}" width="{step - 4:.1f}" height="{h:.1f}" fill="#cfd8e3">'
                     f"<title>{k}: chance {test.null[k]:.3f}, dealt {seen[k]:.3f}</title></rect>")
        if seen[k]:
            y = H - PAD - (H - 2 * PAD) * seen[k] / top
            fill = "#c00000" if test.flagged else "#1b1b1b"
            parts.append(f'<circle cx="{x + step / 2:.1f}" cy="{y:.1f}" r="3.5" fill="{fill}"/>')
        parts.append(f'<text x="{x + step / 2 - 3:.1f}" y="{H - 6}" font-size="10" fill="#555">{k}</text>')
    parts.append("</svg>")
    return "".join(parts)


def page(screen: Screen) -> str:
    """The whole page: the verdicts in words, then each player's tests with their pictures."""
    out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Foreman: deal fairness</title>',
           '<meta name="viewport" content="width=device-width, initial-scale=1"><style>',
           "body{font:11pt/1.4 system-ui,sans-serif;max-width:190mm;margin:0 auto;padding:12px;color:#1b1b1b}",
           ".flag{color:#c00000;font-weight:600} figure{display:inline-block;margin:6px;width:300px;vertical-align:top}",
           "figcaption{font-size:9.5pt;color:#444} svg{width:100%;height:auto} @page{size:A4;margin:14mm}",
           "figure{break-inside:avoid}</style></head><body>",
           f"<h1>Deal fairness</h1><p>{plural(screen.deals, 'deal')} as dealt ({escape(screen.left_out)}); "
           f"{len(screen.tests)} tests, one-sided, at alpha {screen.alpha} "
           f"after {CORRECTION_NAMES[screen.correction]}'s correction. "
           "Bars: the chance of each count in one deal; dots: how often it was dealt.</p><ul>"]
    for line in verdicts(screen):
        cls = "" if ": nothing beyond chance" in line else ' class="flag"'
        out.append(f"<li{cls}>{escape(line)}</li>")
    out.append("</ul>")
    for player in sorted({t.player for t in screen.tests}):
        out.append(f"<h2>{escape(player)}</h2>")
        for t in (t for t in screen.tests if t.player == player):
            cap = (f"{t.test} as {t.as_}: {t.observed:.2f} against {t.expected:.2f} over {plural(t.deals, 'deal')}; "
                   f"p = {t.p:.2g}, adjusted {t.p_adjusted:.2g}{' (flagged)' if t.flagged else ''}")
            out.append(f'<figure>{_chart(t)}<figcaption{" class=flag" if t.flagged else ""}>{escape(cap)}'
                       "</figcaption></figure>")
    out.append("</body></html>\n")
    return "\n".join(out)
