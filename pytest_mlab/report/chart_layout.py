"""Where a bar chart's parts go, measured from its text so that nothing is clipped: the
title and the axis note wrap, the legend wraps into rows above the plot, the margins grow
to the longest tick label and task name, and names too long for any room end in an ellipsis."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mlab.report.figures import Figure
from pytest_mlab.report.scale import Scale, tick_label
from pytest_mlab.report.text_size import ASCENT, DESCENT, fit, text_box, text_width, wrap

FONT, TITLE, NOTE = 12.0, 14.0, 11.0
PAD = 8.0
BAR, GAP = 18.0, 28.0
PLOT_HEIGHT = 220.0
DECADE = 70.0
"""The least height of one decade of a symlog axis: 10% apart is then 3 px apart."""
MIN_WIDTH = 360.0
MAX_LABEL = 240.0
"""A task name longer than this (in px) ends in an ellipsis; its tooltip has it whole."""
LABEL_ANGLE = -45.0
LINE, NOTE_LINE, LEGEND_ROW = 18.0, 15.0, 18.0
ERRORS_LEGEND = "trials errored, in no bar (!n: n of them)"
SWATCH = 14.0
"""A legend item's mark and the gap to its name."""


@dataclass(frozen=True)
class LegendItem:
    name: str
    x: float
    y: float
    """The top of its row."""
    kind: str
    """'bar' (a colour swatch, ``index`` is the series), 'threshold' (a dashed line) or
    'errors' (the mark of trials that errored)."""
    index: int = 0


@dataclass(frozen=True)
class Layout:
    width: float
    height: float
    title: list[str]
    note: list[str]
    legend: list[LegendItem]
    left: float
    top: float
    plot_height: float
    group_width: float
    labels: list[str]
    label_angle: float
    label_y: float
    axis_x: float
    """Where the rotated value-axis title is centred."""

    @property
    def right(self) -> float:
        return self.width - PAD

    def y(self, scale: Scale, value: float) -> float:
        return self.top + self.plot_height * (1 - scale.fraction(value))

    def centre(self, group: int) -> float:
        return self.left + (group + 0.5) * self.group_width


def axis_title(figure: Figure, scale: Scale) -> str:
    return f"{figure.axis} (symmetric log)" if scale.kind == "symlog" else figure.axis


def layout(figure: Figure, scale: Scale) -> Layout:
    group_width = max(1, len(figure.series)) * BAR + GAP
    labels = [fit(g, MAX_LABEL, FONT) for g in figure.groups]
    flat = all(text_width(label, FONT) <= group_width - 4 for label in labels)
    angle = 0.0 if flat else LABEL_ANGLE
    axis = axis_title(figure, scale)
    decades = scale.transform(scale.high) - scale.transform(scale.low)
    plot_height = max(PLOT_HEIGHT, text_width(axis, FONT) + 2 * PAD,
                      DECADE * decades if scale.kind == "symlog" else 0.0)
    axis_x = PAD + ASCENT * FONT
    ticks_width = max((text_width(tick_label(t), FONT) for t in scale.ticks), default=0.0)
    left = axis_x + DESCENT * FONT + 2 * PAD + ticks_width
    boxes = [text_box((g + 0.5) * group_width, 0.0, label, FONT,
                      anchor="middle" if flat else "end", angle=angle)
             for g, label in enumerate(labels)]
    left = max([left] + [PAD - box[0] for box in boxes])
    width = max(left + len(labels) * group_width + PAD,
                max((left + box[2] + PAD for box in boxes), default=0.0), MIN_WIDTH)
    title = wrap(figure.title, width - 2 * PAD, TITLE, bold=True)
    note = wrap(scale.note, width - 2 * PAD, NOTE) if scale.note else []
    legend_top = PAD + LINE * len(title) + NOTE_LINE * len(note) + 4
    legend = _legend(figure, width, legend_top)
    rows = 1 + max((int((item.y - legend_top) / LEGEND_ROW) for item in legend), default=-1)
    top = legend_top + LEGEND_ROW * rows + ASCENT * FONT + 4
    label_y = top + plot_height + 8 + (ASCENT * FONT if flat else 0.0)
    below = max((box[3] for box in boxes), default=0.0)
    return Layout(width=width, height=label_y + below + PAD, title=title, note=note,
                  legend=legend, left=left, top=top, plot_height=plot_height,
                  group_width=group_width, labels=labels, label_angle=angle, label_y=label_y,
                  axis_x=axis_x)


def _legend(figure: Figure, width: float, top: float) -> list[LegendItem]:
    entries = [(name, "bar", n) for n, name in enumerate(figure.series)]
    if figure.marks:
        entries.append(("threshold (per task)", "threshold", 0))
    if figure.errors:
        entries.append((ERRORS_LEGEND, "errors", 0))
    items, x, y = [], PAD, top
    room = width - 2 * PAD - SWATCH
    for name, kind, index in entries:
        name = fit(name, room, FONT)
        span = SWATCH + text_width(name, FONT) + 2 * PAD
        if x > PAD and x + span - 2 * PAD > width - PAD:
            x, y = PAD, y + LEGEND_ROW
        items.append(LegendItem(name, x, y, kind, index))
        x += span
    return items
