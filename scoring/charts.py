"""Small server-rendered SVG charts. Every chart has a <title> and <desc>; the pages put the
same numbers in a table beside it, so the chart is never the only way to read them."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_ids = count(1)
# Distinct hues and dash patterns, so series differ in more than colour.
PALETTE = ("#2456c7", "#1d7a46", "#b3261e", "#8a5a00", "#6b3fa0", "#00707a", "#5b6673")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "4 4", "1 2", "10 4")


def _id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


def bar_chart(items: Sequence[tuple[str, float | None]], *, title: str, desc: str,
              max_value: float = 100.0) -> SafeString:
    """Horizontal bars, one per item, value printed at the end of each bar."""
    label_w, bar_w, row_h, pad = 250, 330, 30, 8
    width = label_w + bar_w + 70
    height = pad * 2 + row_h * max(1, len(items)) + 18
    title_id, desc_id = _id("chart-title"), _id("chart-desc")
    parts = [
        f'<svg class="chart chart-bars" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" aria-labelledby="{title_id} {desc_id}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{title_id}">{escape(title)}</title>',
        f'<desc id="{desc_id}">{escape(desc)}</desc>',
    ]
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
    title_id, desc_id = _id("chart-title"), _id("chart-desc")

    def x_at(i: int) -> float:
        return left + (i * step if n > 1 else plot_w / 2)

    def y_at(v: float) -> float:
        return top + plot_h * (1 - max(0.0, min(v, max_value)) / max_value)

    parts = [
        f'<svg class="chart chart-lines" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" aria-labelledby="{title_id} {desc_id}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{title_id}">{escape(title)}</title>',
        f'<desc id="{desc_id}">{escape(desc)}</desc>',
    ]
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
