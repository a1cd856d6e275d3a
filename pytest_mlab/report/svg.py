"""Inline SVG charts: no script, no external font or stylesheet, readable offline."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from pytest_mlab.report.chart_layout import (
    BAR,
    FONT,
    GAP,
    LINE,
    NOTE,
    NOTE_LINE,
    PAD,
    SWATCH,
    TITLE,
    Layout,
    axis_title,
    layout,
)
from pytest_mlab.report.figures import Figure, scale_of
from pytest_mlab.report.scale import Scale, tick_label
from pytest_mlab.report.text_size import FONT_FAMILY, fit

COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000",
           "#F0E442")
"""Okabe and Ito's palette, told apart with any colour vision; the pale yellow comes last."""
THRESHOLD = 'stroke="#222" stroke-width="1.5" stroke-dasharray="5 3" fill="none"'
ERROR = "#9a6700"
"""report.html's colour of an error."""
ERRORED = f'fill="#fff8e6" stroke="{ERROR}" stroke-width="1" stroke-dasharray="3 2"'
NAMESPACE = 'xmlns="http://www.w3.org/2000/svg"'


def colour(index: int) -> str:
    """Distinct for the first eight series; a ninth repeats the first."""
    return COLOURS[index % len(COLOURS)]


def _open(width: float, height: float, label: str, standalone: bool) -> str:
    namespace = f" {NAMESPACE}" if standalone else ""
    return (f'<svg{namespace} width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(label)}" '
            f'font-family="{FONT_FAMILY}" font-size="12">')


def _text(x: float, y: float, text: str, *, anchor: str = "start", angle: float = 0.0,
          extra: str = "", tooltip: str = "") -> str:
    turn = f" rotate({angle:g})" if angle else ""
    align = f' text-anchor="{anchor}"' if anchor != "start" else ""
    hint = f"<title>{escape(tooltip)}</title>" if tooltip else ""
    return (f'<text transform="translate({x:.1f} {y:.1f}){turn}"{align}{extra}>{hint}'
            f'{escape(text)}</text>')


def _heading(box: Layout) -> list[str]:
    parts = [_text(PAD, PAD + TITLE * 0.93 + n * LINE, line,
                   extra=' font-size="14" font-weight="bold"') for n, line in enumerate(box.title)]
    below = PAD + LINE * len(box.title)
    parts += [_text(PAD, below + NOTE * 0.93 + n * NOTE_LINE, line,
                    extra=' font-size="11" fill="#444"') for n, line in enumerate(box.note)]
    for item in box.legend:
        if item.kind == "bar":
            parts.append(f'<rect x="{item.x:.1f}" y="{item.y + 3:.1f}" width="10" height="10" '
                         f'fill="{colour(item.index)}" stroke="#222" stroke-width="0.5"/>')
        elif item.kind == "errors":
            parts.append(f'<rect x="{item.x:.1f}" y="{item.y + 3:.1f}" width="10" height="10" '
                         f'{ERRORED}/>')
        else:
            parts.append(f'<path d="M{item.x:.1f} {item.y + 8:.1f}h11" {THRESHOLD}/>')
        parts.append(_text(item.x + SWATCH, item.y + 12, item.name))
    return parts


def _axis(box: Layout, scale: Scale, title: str) -> list[str]:
    parts = []
    for value in scale.minor:
        parts.append(f'<path d="M{box.left:.1f} {box.y(scale, value):.1f}H{box.right:.1f}" '
                     f'stroke="#f0f0f0"/>')
    for tick in scale.ticks:
        y = box.y(scale, tick)
        parts.append(f'<path d="M{box.left:.1f} {y:.1f}H{box.right:.1f}" stroke="#ddd"/>'
                     + _text(box.left - 6, y + 4, tick_label(tick), anchor="end"))
    middle = box.top + box.plot_height / 2
    parts.append(_text(box.axis_x, middle, title, anchor="middle", angle=-90))
    return parts


def _errored(figure: Figure, box: Layout, key: tuple[str, str], x0: float) -> list[str]:
    """Trials that errored are in no bar: an empty slot, framed, says how many; over a bar,
    ``!n`` above the plot."""
    found = figure.errors.get(key)
    if found is None:
        return []
    hint = f"<title>{escape(f'{key[0]}, {key[1]}: {found.text}')}</title>"
    centre = x0 + BAR / 2
    if key in figure.bars:
        return [f'<text class="errored" x="{centre:.1f}" y="{box.top - 3:.1f}" '
                f'text-anchor="middle" font-size="11" font-weight="bold" fill="{ERROR}">'
                f'{hint}!{found.errors}</text>']
    words = fit(found.text, box.plot_height - 8, FONT)
    return [f'<rect class="errored" x="{x0 + 1:.1f}" y="{box.top:.1f}" width="{BAR - 2:g}" '
            f'height="{box.plot_height:.1f}" {ERRORED}>{hint}</rect>',
            _text(centre + 4, box.top + box.plot_height / 2, words, anchor="middle", angle=-90,
                  extra=f' fill="{ERROR}"', tooltip=f"{key[0]}, {key[1]}: {found.text}")]


def _group(figure: Figure, box: Layout, scale: Scale, g: int) -> list[str]:
    group, parts = figure.groups[g], []
    zero = box.y(scale, min(max(0.0, scale.low), scale.high))
    first = box.left + g * box.group_width + GAP / 2
    for s, name in enumerate(figure.series):
        bar = figure.bars.get((group, name))
        x0, centre = first + s * BAR, first + s * BAR + BAR / 2
        parts += _errored(figure, box, (group, name), x0)
        if bar is None:
            continue
        y = box.y(scale, bar.value)
        # A bar at zero is still a visible sliver in its colour: a 0% is not a missing bar.
        top, height = (min(y, zero), abs(zero - y)) if abs(zero - y) >= 2 else (zero - 1, 2.0)
        parts.append(f'<rect x="{x0 + 1:.1f}" y="{top:.1f}" width="{BAR - 2:g}" '
                     f'height="{height:.1f}" fill="{colour(s)}" '
                     f'fill-opacity="0.85"><title>{escape(bar.text)}</title></rect>')
        if abs(zero - y) < 2:  # a pale colour's sliver is lost on the axis: outline it dark
            parts.append(f'<path class="zero-bar" d="M{x0 + 1:.1f} {y:.1f}h{BAR - 2:g}" '
                         f'stroke="#222" stroke-width="2"><title>{escape(bar.text)}</title>'
                         '</path>')
        if bar.low is not None and bar.high is not None:
            low, high = box.y(scale, bar.low), box.y(scale, bar.high)
            parts.append(f'<path d="M{centre:.1f} {low:.1f}V{high:.1f}M{centre - 4:.1f} '
                         f'{low:.1f}h8M{centre - 4:.1f} {high:.1f}h8" stroke="#222" '
                         f'fill="none"/>')
        parts += [f'<circle cx="{centre:.1f}" cy="{box.y(scale, p):.1f}" r="3" fill="#fff" '
                  f'stroke="#222"/>' for p in bar.points]
    for mark in figure.marks.get(group, ()) if figure.bars else ():
        y = box.y(scale, mark)
        end = first + len(figure.series) * BAR + 4
        parts.append(f'<path d="M{first - 4:.1f} {y:.1f}H{end:.1f}" {THRESHOLD}>'
                     f'<title>{escape(group)}: threshold {tick_label(mark)}</title></path>')
    anchor = "middle" if box.label_angle == 0 else "end"
    parts.append(_text(box.centre(g), box.label_y, box.labels[g], anchor=anchor,
                       angle=box.label_angle,
                       tooltip=group if box.labels[g] != group else ""))
    return parts


def chart(figure: Figure, *, standalone: bool = False) -> str:
    """Grouped bars: one group per task, one bar per agent, with whiskers, dots and the
    task's threshold; the value axis is symmetric-log where one value dwarfs the rest."""
    scale = scale_of(figure)
    box = layout(figure, scale)
    parts = [_open(box.width, box.height, figure.title, standalone), *_heading(box)]
    # Without a bar, an axis would only draw a range that nothing measured.
    if figure.bars:
        parts += _axis(box, scale, axis_title(figure, scale))
    for g in range(len(figure.groups)):
        parts += _group(figure, box, scale, g)
    if figure.bars:
        zero = box.y(scale, min(max(0.0, scale.low), scale.high))
        parts.append(f'<path d="M{box.left:.1f} {zero:.1f}H{box.right:.1f}" stroke="#222"/>')
    if not figure.bars and not figure.errors:
        parts.append(_text((box.left + box.right) / 2, box.top + box.plot_height / 2, "no data",
                           anchor="middle"))
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
             f'<text x="4" y="14">{escape(fit(f"{metric} over steps", width - 8, 12))}</text>',
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
