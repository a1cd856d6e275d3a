"""Inline SVG charts: no script, no external font or stylesheet, readable offline."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from pytest_mlab.report.figures import Figure, value_range

COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000")
BAR = 18
GAP = 28
LEFT = 60
TOP = 44
PLOT_HEIGHT = 220
NAMESPACE = 'xmlns="http://www.w3.org/2000/svg"'


def colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    ticks = []
    tick = first
    while tick <= high + step * 1e-9:
        ticks.append(round(tick, 12))
        tick += step
    if ticks[-1] < high:
        ticks.append(ticks[-1] + step)
    return ticks


def _open(width: float, height: float, label: str, standalone: bool) -> str:
    namespace = f" {NAMESPACE}" if standalone else ""
    return (f'<svg{namespace} width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(label)}" '
            f'font-family="sans-serif" font-size="12">')


def _legend(series: Sequence[str]) -> list[str]:
    parts, x = [], 8.0
    for n, name in enumerate(series):
        parts.append(f'<rect x="{x:.1f}" y="26" width="10" height="10" fill="{colour(n)}"/>'
                     f'<text x="{x + 14:.1f}" y="35">{escape(name)}</text>')
        x += len(name) * 7 + 28
    return parts


def chart(figure: Figure, *, standalone: bool = False) -> str:
    """Grouped bars: one group per task, one bar per agent, with whiskers and dots."""
    groups, series = figure.groups, figure.series
    low, high = value_range(figure)
    ticks = nice_ticks(low, high) if figure.fixed is None else [i / 5 for i in range(6)]
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    group_width = max(1, len(series)) * BAR + GAP
    longest = max((len(g) for g in groups), default=4)
    bottom = 24 + min(longest, 40) * 4.5
    legend_width = sum(len(s) * 7 + 28 for s in series)
    width = max(LEFT + len(groups) * group_width + 16, legend_width + 24,
                len(figure.title) * 7.5 + 16, 360)
    height = TOP + PLOT_HEIGHT + bottom

    def y(value: float) -> float:
        return TOP + PLOT_HEIGHT * (high - value) / (high - low)

    parts = [_open(width, height, figure.title, standalone),
             f'<text x="8" y="16" font-size="14" font-weight="bold">{escape(figure.title)}</text>']
    parts += _legend(series)
    for tick in ticks:
        parts.append(f'<line x1="{LEFT}" x2="{width - 8:.0f}" y1="{y(tick):.1f}" '
                     f'y2="{y(tick):.1f}" stroke="#ddd"/>'
                     f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">'
                     f'{tick:.0%}</text>')
    parts.append(f'<text transform="translate(14 {TOP + PLOT_HEIGHT / 2:.0f}) rotate(-90)" '
                 f'text-anchor="middle">{escape(figure.axis)}</text>')
    zero = y(min(max(0.0, low), high))
    for g, group in enumerate(groups):
        left = LEFT + g * group_width + GAP / 2
        for s, name in enumerate(series):
            bar = figure.bars.get((group, name))
            if bar is None:
                continue
            x0, centre = left + s * BAR, left + s * BAR + BAR / 2
            top = min(y(bar.value), zero)
            parts.append(f'<rect x="{x0 + 1:.1f}" y="{top:.1f}" width="{BAR - 2}" '
                         f'height="{max(abs(zero - y(bar.value)), 0.5):.1f}" '
                         f'fill="{colour(s)}" fill-opacity="0.85">'
                         f'<title>{escape(bar.text)}</title></rect>')
            if bar.low is not None and bar.high is not None:
                parts.append(f'<path d="M{centre:.1f} {y(bar.low):.1f}V{y(bar.high):.1f}'
                             f'M{centre - 4:.1f} {y(bar.low):.1f}h8M{centre - 4:.1f} '
                             f'{y(bar.high):.1f}h8" stroke="#222" fill="none"/>')
            for point in bar.points:
                parts.append(f'<circle cx="{centre:.1f}" cy="{y(point):.1f}" r="3" '
                             f'fill="#fff" stroke="#222"/>')
        label_x = left + len(series) * BAR / 2
        parts.append(f'<text transform="translate({label_x:.1f} {TOP + PLOT_HEIGHT + 14}) '
                     f'rotate(-30)" text-anchor="end">{escape(group)}</text>')
    parts.append(f'<line x1="{LEFT}" x2="{width - 8:.0f}" y1="{zero:.1f}" y2="{zero:.1f}" '
                 f'stroke="#222"/>')
    if not figure.bars:
        parts.append(f'<text x="{width / 2:.0f}" y="{TOP + PLOT_HEIGHT / 2:.0f}" '
                     f'text-anchor="middle">no data</text>')
    parts.append("</svg>")
    return "".join(parts)


def step_chart(points: Sequence[tuple[int, float]], baseline: float | None, metric: str) -> str:
    """A trial's score over its steps, with the baseline dashed."""
    if not points:
        return ""
    width, height, pad = 360.0, 130.0, 28.0
    values = [v for _, v in points] + ([baseline] if baseline is not None else [])
    low, high = min(values), max(values)
    if high == low:
        low, high = low - 1, high + 1
    last = max(max(s for s, _ in points), 1)

    def xy(step: float, value: float) -> tuple[float, float]:
        return (pad + (width - 2 * pad) * step / last,
                height - pad - (height - 2 * pad) * (value - low) / (high - low))

    coords = [xy(s, v) for s, v in points]
    parts = [_open(width, height, f"{metric} over steps", False),
             f'<text x="4" y="14">{escape(metric)} over steps</text>',
             f'<text x="4" y="{height - 6:.0f}">step 0</text>',
             f'<text x="{width - 4:.0f}" y="{height - 6:.0f}" text-anchor="end">step {last}</text>']
    if baseline is not None:
        _, by = xy(0, baseline)
        parts.append(f'<line x1="{pad}" x2="{width - pad}" y1="{by:.1f}" y2="{by:.1f}" '
                     f'stroke="#888" stroke-dasharray="4 3"><title>baseline {baseline:.6g}'
                     f'</title></line>')
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    parts.append(f'<polyline points="{path}" fill="none" stroke="{COLOURS[0]}"/>')
    for (step, value), (x, y) in zip(points, coords, strict=True):
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{COLOURS[0]}">'
                     f'<title>step {step}: {value:.6g}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)
