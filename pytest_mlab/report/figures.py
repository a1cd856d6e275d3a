"""The paper's two figures as data: success rate and improvement, per task and agent.

The SVG and PNG renderers draw these, so every chart shows the table's own numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_mlab.core.results import TrialResult
from pytest_mlab.report.format import interval, percent
from pytest_mlab.report.rows import Row, task_label
from pytest_mlab.report.scale import Scale, choose_scale


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
class Errored:
    """A task x agent's trials that ended in a harness error: they are in no bar (a rate is
    over the trials that ran), so the chart marks them apart."""

    errors: int
    trials: int
    """The trials that ran or errored."""

    @property
    def text(self) -> str:
        if self.errors == self.trials:
            return "the trial errored" if self.trials == 1 else f"all {self.trials} trials errored"
        return f"{self.errors} of {self.trials} trials errored"


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
    marks: dict[str, tuple[float, ...]] = field(default_factory=dict)
    """Per group, the values a bar must reach (the task's threshold), drawn as dashed lines."""
    errors: dict[tuple[str, str], Errored] = field(default_factory=dict)
    """Per group and series where any trial errored: an empty slot says so, a bar is marked."""


def errors_of(rows: Sequence[Row]) -> dict[tuple[str, str], Errored]:
    return {(task_label(row), row.label): Errored(row.errors, row.ran + row.errors)
            for row in rows if row.errors}


def success_figure(rows: Sequence[Row]) -> Figure:
    bars = {
        (task_label(row), row.label): Bar(
            row.success_rate, row.success_low, row.success_high,
            text=f"{task_label(row)}, {row.label}: {row.passed}/{row.ran} succeeded, "
                 f"95% CI {interval(row.success_low, row.success_high)}"
                 + (f"; {row.errors} more errored" if row.errors else ""),
        )
        for row in rows if row.success_rate is not None
    }
    return Figure(
        "success", "Success rate per task (95% Wilson interval)", "success rate",
        tuple(sorted({task_label(row) for row in rows})),
        tuple(sorted({row.label for row in rows})), bars, fixed=(0.0, 1.0),
        errors=errors_of(rows),
    )


def thresholds_of(results: Iterable[TrialResult]) -> dict[str, tuple[float, ...]]:
    """Each task's improvement threshold(s): pooled runs may have used different ones."""
    found: dict[str, set[float]] = {}
    for result in results:
        found.setdefault(result.task, set()).add(result.threshold)
    return {task: tuple(sorted(values)) for task, values in found.items()}


def improvement_figure(
    rows: Sequence[Row], thresholds: Mapping[str, tuple[float, ...]] | None = None
) -> Figure:
    """``thresholds``: per task (``thresholds_of``), drawn over its group of bars."""
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
        marks={task_label(row): tuple(thresholds[row.task]) for row in rows
               if thresholds and row.task in thresholds},
        errors=errors_of(rows),
    )


def scale_of(figure: Figure) -> Scale:
    data = [v for bar in figure.bars.values() for v in (bar.value, *bar.points)]
    marks = [v for values in figure.marks.values() for v in values]
    return choose_scale(data, marks, figure.fixed)
