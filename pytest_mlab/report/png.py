"""The figures as PNG, drawn by matplotlib (the optional ``plot`` extra), on the SVG's scale:
symmetric-log where one value dwarfs the rest, each task's threshold dashed, the legend outside
the axes and nothing cut off at the edges."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_mlab.report.chart_layout import ERRORS_LEGEND, MAX_LABEL, axis_title
from pytest_mlab.report.figures import Figure, scale_of
from pytest_mlab.report.scale import tick_label
from pytest_mlab.report.svg import ERROR, colour
from pytest_mlab.report.text_size import fit

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as Canvas


def _bars(figure: Figure, axes: Axes) -> None:
    groups, series = figure.groups, figure.series
    width = 0.8 / max(len(series), 1)
    for s, name in enumerate(series):
        xs, heights, errors, dots_x, dots_y = [], [], [], [], []
        for g, group in enumerate(groups):
            bar = figure.bars.get((group, name))
            if bar is None:
                continue
            x = g - 0.4 + width * (s + 0.5)
            xs.append(x)
            heights.append(bar.value)
            low = bar.value if bar.low is None else bar.low
            high = bar.value if bar.high is None else bar.high
            errors.append((bar.value - low, high - bar.value))
            dots_x += [x] * len(bar.points)
            dots_y += list(bar.points)
        axes.bar(xs, heights, width * 0.9, color=colour(s), label=name, edgecolor="#222",
                 linewidth=0.4, yerr=list(zip(*errors, strict=True)) if errors else None,
                 capsize=3)
        flat = [x for x, height in zip(xs, heights, strict=True) if height == 0]
        if flat:  # a bar of height 0 has no area to colour: a dark line marks its value
            axes.hlines([0.0] * len(flat), [x - width * 0.45 for x in flat],
                        [x + width * 0.45 for x in flat], colors="#222", linewidth=2, zorder=3)
        if dots_x:
            axes.scatter(dots_x, dots_y, s=14, facecolors="white", edgecolors="#222", zorder=3)
    label = "threshold (per task)"
    for g, group in enumerate(groups):
        for mark in figure.marks.get(group, ()):
            axes.hlines(mark, g - 0.45, g + 0.45, colors="#222", linestyles="--", linewidth=1.2,
                        zorder=4, label=label)
            label = "_"  # matplotlib leaves names starting with _ out of the legend


def _errors(figure: Figure, axes: Axes) -> None:
    """Trials that errored are in no bar: an empty slot says how many, a bar has ``!n`` over
    the plot."""
    width = 0.8 / max(len(figure.series), 1)
    for (group, name), found in figure.errors.items():
        x = figure.groups.index(group) - 0.4 + width * (figure.series.index(name) + 0.5)
        if (group, name) in figure.bars:
            axes.text(x, 1.01, f"!{found.errors}", transform=axes.get_xaxis_transform(),
                      ha="center", va="bottom", color=ERROR, fontsize=8, fontweight="bold")
        else:
            axes.text(x, 0.5, found.text, transform=axes.get_xaxis_transform(), rotation=90,
                      ha="center", va="center", color=ERROR, fontsize=8)


def draw(figure: Figure) -> Canvas:
    """Raises ImportError where matplotlib is not installed."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as Canvas
    from matplotlib.ticker import FixedLocator, FuncFormatter

    groups, series = figure.groups, figure.series
    scale = scale_of(figure)
    canvas = Canvas(figsize=(max(6.0, 1.0 + 0.35 * len(groups) * max(len(series), 1)), 4.5))
    FigureCanvasAgg(canvas)
    axes = canvas.add_subplot()
    _bars(figure, axes)
    _errors(figure, axes)
    labels = [fit(g, MAX_LABEL, 10) for g in groups]
    axes.set_xticks(range(len(groups)), labels, rotation=45, ha="right",
                    rotation_mode="anchor")
    if scale.kind == "symlog":
        axes.set_yscale("symlog", linthresh=scale.linear_within, linscale=0.9)  # C spans a decade
    axes.set_ylim(scale.low, scale.high)
    axes.yaxis.set_major_locator(FixedLocator(list(scale.ticks)))
    axes.yaxis.set_minor_locator(FixedLocator(list(scale.minor)))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: tick_label(value)))
    axes.grid(axis="y", which="both", color="#e4e4e4", linewidth=0.6)
    axes.set_axisbelow(True)
    axes.axhline(0, color="#222", linewidth=0.8)
    axes.set_ylabel(axis_title(figure, scale))
    notes = scale.note + (f" Errors: {ERRORS_LEGEND}." if figure.errors else "")
    title = "\n".join(textwrap.wrap(figure.title, 90) + textwrap.wrap(notes.strip(), 110))
    axes.set_title(title, fontsize=10, loc="left")
    if series:
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return canvas


def write_png(figure: Figure, path: Path) -> Path:
    """Raises ImportError where matplotlib is not installed."""
    # bbox_inches="tight" grows the image to every label, title and the legend outside.
    draw(figure).savefig(path, dpi=120, bbox_inches="tight", pad_inches=0.15)
    return path
