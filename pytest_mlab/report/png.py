"""The figures as PNG, drawn by matplotlib (the optional ``plot`` extra)."""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.report.figures import Figure, value_range
from pytest_mlab.report.svg import colour


def write_png(figure: Figure, path: Path) -> Path:
    """Raises ImportError where matplotlib is not installed."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as Canvas
    from matplotlib.ticker import PercentFormatter

    groups, series = figure.groups, figure.series
    canvas = Canvas(figsize=(max(6.0, 1.0 + 0.35 * len(groups) * max(len(series), 1)), 4.5))
    FigureCanvasAgg(canvas)
    axes = canvas.add_subplot()
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
        axes.bar(xs, heights, width * 0.9, color=colour(s), label=name,
                 yerr=list(zip(*errors, strict=True)) if errors else None, capsize=3)
        if dots_x:
            axes.scatter(dots_x, dots_y, s=14, facecolors="white", edgecolors="#222", zorder=3)
    axes.set_xticks(range(len(groups)), groups, rotation=30, ha="right")
    axes.set_ylim(*value_range(figure))
    axes.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes.axhline(0, color="#222", linewidth=0.8)
    axes.set_ylabel(figure.axis)
    axes.set_title(figure.title, fontsize=10)
    if series:
        axes.legend(fontsize=8)
    canvas.tight_layout()
    canvas.savefig(path, dpi=120)
    return path
