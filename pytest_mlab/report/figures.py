"""The paper's two figures as data: success rate and improvement, per task and agent.

The SVG and PNG renderers draw these, so every chart shows the table's own numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pytest_mlab.report.format import interval, percent
from pytest_mlab.report.rows import Row, task_label


@dataclass(frozen=True)
class Bar:
    value: float
    low: float | None = None
    high: float | None = None
    points: tuple[float, ...] = ()
    """Individual trials, drawn as dots over the bar."""
    text: str = ""
    """What hovering over the bar says."""


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    axis: str
    groups: tuple[str, ...]
    series: tuple[str, ...]
    bars: dict[tuple[str, str], Bar] = field(default_factory=dict)
    fixed: tuple[float, float] | None = None
    """The value axis' range; None fits it to the data and zero."""


def success_figure(rows: Sequence[Row]) -> Figure:
    bars = {
        (task_label(row), row.label): Bar(
            row.success_rate, row.success_low, row.success_high,
            text=f"{task_label(row)}, {row.label}: {row.passed}/{row.ran} succeeded, "
                 f"95% CI {interval(row.success_low, row.success_high)}",
        )
        for row in rows if row.success_rate is not None
    }
    return Figure(
        "success", "Success rate per task (95% Wilson interval)", "success rate",
        tuple(sorted({task_label(row) for row in rows})),
        tuple(sorted({row.label for row in rows})), bars, fixed=(0.0, 1.0),
    )


def improvement_figure(rows: Sequence[Row]) -> Figure:
    bars = {
        (task_label(row), row.label): Bar(
            row.mean_improvement, points=tuple(row.improvements),
            text=f"{task_label(row)}, {row.label}: mean improvement "
                 f"{percent(row.mean_improvement, signed=True)} over {len(row.improvements)} "
                 f"valid submissions",
        )
        for row in rows if row.mean_improvement is not None
    }
    return Figure(
        "improvement", "Improvement over the baseline, valid submissions (dots: trials)",
        "improvement", tuple(sorted({task_label(row) for row in rows})),
        tuple(sorted({row.label for row in rows})), bars,
    )


def value_range(figure: Figure) -> tuple[float, float]:
    if figure.fixed is not None:
        return figure.fixed
    values = [0.0]
    for bar in figure.bars.values():
        values += [bar.value, *bar.points]
    low, high = min(values), max(values)
    if high == low:
        return low, low + 1.0
    pad = (high - low) * 0.08
    return low - (pad if low < 0 else 0.0), high + (pad if high > 0 else 0.0)
