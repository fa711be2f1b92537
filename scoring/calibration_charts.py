"""SVG charts for the calibration page, in the style of scoring.charts: <title> and <desc> on
every chart, and the page puts the same numbers in a table beside it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import count
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_ids = count(1)
# Where a rating band starts on the automatic 0-100 scale (scoring.reports.RATING_BANDS).
BAND_EDGES = (35, 60, 80)


def _open(cls: str, width: int, height: int, title: str, desc: str) -> list[str]:
    n = next(_ids)
    title_id, desc_id = f"cal-title-{n}", f"cal-desc-{n}"
    return [
        f'<svg class="chart {cls}" role="img" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" aria-labelledby="{title_id} {desc_id}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{title_id}">{escape(title)}</title>',
        f'<desc id="{desc_id}">{escape(desc)}</desc>',
    ]


def agreement_scatter(pairs: Sequence[tuple[float, int]], *, title: str,
                      desc: str) -> SafeString:
    """Automatic total (x, 0-100) against human rating (y, 1-4). Shaded cells are where the
    automatic rating equals the human one; stacked dots show repeats."""
    left, top, plot_w, plot_h, bottom = 70, 12, 440, 200, 40
    width, height = left + plot_w + 20, top + plot_h + bottom
    row_h = plot_h / 4

    def x_at(total: float) -> float:
        return left + plot_w * max(0.0, min(total, 100.0)) / 100

    def y_at(rating: int) -> float:
        return top + plot_h - (rating - 0.5) * row_h

    parts = _open("chart-scatter", width, height, title, desc)
    edges = (0, *BAND_EDGES, 100)
    for rating in range(1, 5):  # the diagonal of agreement: band `rating` on row `rating`
        x0, x1 = x_at(edges[rating - 1]), x_at(edges[rating])
        y0 = top + plot_h - rating * row_h
        parts.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" '
                     f'height="{row_h:.1f}" fill="#e6f4ec"/>')
        parts.append(f'<text x="{left - 8}" y="{y_at(rating) + 4:.1f}" font-size="12" '
                     f'fill="#1d232b" text-anchor="end">{rating}/4</text>')
    for tick in (0, 25, 50, 75, 100):
        x = x_at(tick)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" '
                     f'stroke="#d9dee4"/>')
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" font-size="11" '
                     f'fill="#5b6673" text-anchor="middle">{tick}</text>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" font-size="12" '
                 f'fill="#5b6673" text-anchor="middle">Automatic total (0-100)</text>')
    parts.append(f'<text x="14" y="{top + plot_h / 2:.1f}" font-size="12" fill="#5b6673" '
                 f'text-anchor="middle" transform="rotate(-90 14 {top + plot_h / 2:.1f})">'
                 'Human rating</text>')
    parts.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
                 'stroke="#aeb7c2"/>')
    seen: Counter[tuple[int, int]] = Counter()
    for total, rating in pairs:
        cell = (round(total), rating)
        offset = seen[cell] * 5  # repeats stack upward instead of hiding each other
        seen[cell] += 1
        parts.append(f'<circle cx="{x_at(total):.1f}" cy="{y_at(rating) - offset + 8:.1f}" '
                     'r="4" fill="#2456c7" fill-opacity=".75"/>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated string is escaped


def flip_bars(criteria: Sequence[dict[str, Any]], *, title: str, desc: str) -> SafeString:
    """One bar per criterion: share of scorecards that flipped the automatic verdict."""
    label_w, bar_w, row_h, pad = 260, 280, 28, 8
    width = label_w + bar_w + 90
    height = pad * 2 + row_h * max(1, len(criteria)) + 18
    parts = _open("chart-bars", width, height, title, desc)
    for tick in (0, 50, 100):
        x = label_w + bar_w * tick / 100
        parts.append(f'<line x1="{x:.1f}" y1="{pad}" x2="{x:.1f}" y2="{height - 18}" '
                     f'stroke="#d9dee4"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 4}" font-size="11" fill="#5b6673" '
                     f'text-anchor="middle">{tick}%</text>')
    for i, c in enumerate(criteria):
        y = pad + i * row_h
        label = c["label"] if len(c["label"]) <= 38 else c["label"][:37] + "…"
        parts.append(f'<text x="{label_w - 8}" y="{y + row_h / 2 + 4:.1f}" font-size="12" '
                     f'fill="#1d232b" text-anchor="end">{escape(label)}</text>')
        w = max(1.0, bar_w * c["rate"])
        parts.append(f'<rect x="{label_w}" y="{y + 5}" width="{w:.1f}" height="{row_h - 10}" '
                     'rx="3" fill="#b3261e"/>')
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + row_h / 2 + 4:.1f}" '
                     f'font-size="12" font-weight="600" fill="#1d232b">'
                     f'{c["flips"]}/{c["judged"]}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated string is escaped
