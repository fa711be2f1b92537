"""Small server-rendered SVG charts. Every chart has a <title> and <desc>; the pages put the
same numbers in a table beside it, so the chart is never the only way to read them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import count
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from .engines.base import RATING_BAND_EDGES

_ids = count(1)
# Distinct hues and dash patterns, so series differ in more than colour.
PALETTE = ("#2456c7", "#1d7a46", "#b3261e", "#8a5a00", "#6b3fa0", "#00707a", "#5b6673")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "4 4", "1 2", "10 4")


def _id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


def _svg_open(css_class: str, width: float, height: float, title: str, desc: str) -> list[str]:
    """The accessible opening of every chart: role=img, labelled by its <title> and <desc>."""
    title_id, desc_id = _id("chart-title"), _id("chart-desc")
    return [
        f'<svg class="chart {css_class}" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" aria-labelledby="{title_id} {desc_id}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{title_id}">{escape(title)}</title>',
        f'<desc id="{desc_id}">{escape(desc)}</desc>',
    ]


def bar_chart(items: Sequence[tuple[str, float | None]], *, title: str, desc: str,
              max_value: float = 100.0) -> SafeString:
    """Horizontal bars, one per item, value printed at the end of each bar."""
    label_w, bar_w, row_h, pad = 250, 330, 30, 8
    width = label_w + bar_w + 70
    height = pad * 2 + row_h * max(1, len(items)) + 18
    parts = _svg_open("chart-bars", width, height, title, desc)
    # Gridlines at 0/50/100 with the hire-ish zone marked lightly.
    for tick in (0, 25, 50, 75, 100):
        x = label_w + bar_w * tick / max_value
        parts.append(f'<line x1="{x:.1f}" y1="{pad}" x2="{x:.1f}" y2="{height - 18}" '
                     f'stroke="#d9dee4" stroke-width="1"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 4}" font-size="11" fill="#5b6673" '
                     f'text-anchor="middle">{tick}</text>')
    for i, (label, value) in enumerate(items):
        y = pad + i * row_h
        short = label if len(label) <= 34 else label[:33] + "…"
        parts.append(f'<text x="{label_w - 8}" y="{y + row_h / 2 + 4:.1f}" font-size="13" '
                     f'fill="#1d232b" text-anchor="end">{escape(short)}</text>')
        if value is None:
            parts.append(f'<text x="{label_w + 4}" y="{y + row_h / 2 + 4:.1f}" font-size="12" '
                         f'fill="#5b6673">not scored</text>')
            continue
        w = max(1.0, bar_w * max(0.0, min(value, max_value)) / max_value)
        fill = "#1d7a46" if value >= 70 else "#2456c7" if value >= 50 else "#b3261e"
        parts.append(f'<rect x="{label_w}" y="{y + 5}" width="{w:.1f}" height="{row_h - 10}" '
                     f'rx="3" fill="{fill}"/>')
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + row_h / 2 + 4:.1f}" '
                     f'font-size="13" font-weight="600" fill="#1d232b">{value:.0f}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated string is escaped


def line_chart(x_labels: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]], *,
               title: str, desc: str, max_value: float = 100.0) -> SafeString:
    """Lines over time (one point per x label); gaps where a series has no value."""
    left, right, top, bottom = 36, 170, 12, 34
    plot_w, plot_h = 440, 200
    width, height = left + plot_w + right, top + plot_h + bottom
    n = max(1, len(x_labels))
    step = plot_w / max(1, n - 1)

    def x_at(i: int) -> float:
        return left + (i * step if n > 1 else plot_w / 2)

    def y_at(v: float) -> float:
        return top + plot_h * (1 - max(0.0, min(v, max_value)) / max_value)

    parts = _svg_open("chart-lines", width, height, title, desc)
    for tick in (0, 25, 50, 75, 100):
        y = y_at(tick)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
                     f'stroke="#d9dee4"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" fill="#5b6673" '
                     f'text-anchor="end">{tick}</text>')
    label_every = max(1, (n + 7) // 8)
    for i, label in enumerate(x_labels):
        if i % label_every == 0 or i == n - 1:
            parts.append(f'<text x="{x_at(i):.1f}" y="{height - 12}" font-size="11" '
                         f'fill="#5b6673" text-anchor="middle">{escape(label)}</text>')
    legend_y = top + 10
    for s, (name, values) in enumerate(series):
        color, dash = PALETTE[s % len(PALETTE)], DASHES[s % len(DASHES)]
        width_px = 3 if s == 0 else 2
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        segment: list[str] = []
        segments: list[list[str]] = []
        for i, value in enumerate(values):
            if value is None:
                if segment:
                    segments.append(segment)
                segment = []
                continue
            segment.append(f"{x_at(i):.1f},{y_at(value):.1f}")
            parts.append(f'<circle cx="{x_at(i):.1f}" cy="{y_at(value):.1f}" r="3.5" '
                         f'fill="{color}"/>')
        if segment:
            segments.append(segment)
        for points in segments:
            if len(points) > 1:
                parts.append(f'<polyline points="{" ".join(points)}" fill="none" '
                             f'stroke="{color}" stroke-width="{width_px}"{dash_attr}/>')
        lx = left + plot_w + 14
        parts.append(f'<line x1="{lx}" y1="{legend_y - 4}" x2="{lx + 22}" y2="{legend_y - 4}" '
                     f'stroke="{color}" stroke-width="{width_px}"{dash_attr}/>')
        short = name if len(name) <= 18 else name[:17] + "…"
        parts.append(f'<text x="{lx + 28}" y="{legend_y}" font-size="12" '
                     f'fill="#1d232b">{escape(short)}</text>')
        legend_y += 18
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated string is escaped


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

    parts = _svg_open("chart-scatter", width, height, title, desc)
    edges = (0, *RATING_BAND_EDGES, 100)
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
    parts = _svg_open("chart-bars", width, height, title, desc)
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
