"""What a run can detect over the suite, said before its first trial: per agent x llm, the
smallest fall of its suite success (the mean over tasks of each task's rate) and of its
mean normalised score that the selected trials could tell from chance against the saved
run, at the gate's level.

Both runs hold the same tasks, so which tasks the suite holds does not move the difference:
only the trials do. Its variance is the sum over the T tasks of var_t (1/n_t + 1/m_t),
over T squared, where n_t and m_t are the trials of task t in the saved run and now, and
var_t is the saved run's: for success p(1 - p) with p = (c + 0.5) / (n + 1) (kept off 0
and 1, where a handful of trials would claim no noise at all), for the normalised score
the sample variance of its trials (which needs two of them). The smallest significant fall
is z(1 - alpha) standard errors: a one-sided test of a fall, in the normal approximation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import sqrt
from statistics import NormalDist, variance

from pytest_mlab.analysis.groups import Group


@dataclass(frozen=True)
class TaskHistory:
    """One group of the saved run: its trials that ran, and their normalised scores."""

    passed: int
    ran: int
    normalised: Sequence[float] = ()
    """Empty where the task has no scale."""


@dataclass(frozen=True)
class SuiteFall:
    label: str
    tasks: int
    success: float | None
    """The smallest significant fall of suite success; None without a task in both runs."""
    normalised: float | None
    normalised_tasks: int
    """Tasks with two or more normalised scores in the saved run, which its figure is over."""


def _fall(variances: Sequence[float], tasks: int, level: float) -> float | None:
    if not tasks:
        return None
    return NormalDist().inv_cdf(1 - level) * sqrt(sum(variances)) / tasks


def suite_falls(base: Mapping[Group, TaskHistory], now: Mapping[Group, int],
                level: float) -> list[SuiteFall]:
    """Per agent x llm over the groups in both runs; ``now``: the trials selected per
    group; ``level``: the gate's significance level."""
    per_agent: dict[tuple[str, str | None], list[tuple[TaskHistory, int]]] = {}
    for group in sorted(base.keys() & now.keys()):
        if base[group].ran and now[group]:
            per_agent.setdefault((group.agent, group.llm), []).append((base[group], now[group]))
    falls = []
    for (agent, llm), tasks in sorted(per_agent.items(), key=lambda i: (i[0][0], i[0][1] or "")):
        success = []
        for h, m in tasks:
            p = (h.passed + 0.5) / (h.ran + 1)
            success.append(p * (1 - p) * (1 / h.ran + 1 / m))
        scaled = [variance(h.normalised) * (1 / len(h.normalised) + 1 / m)
                  for h, m in tasks if len(h.normalised) >= 2]
        falls.append(SuiteFall(
            f"{agent}/{llm}" if llm else agent, len(tasks), _fall(success, len(tasks), level),
            _fall(scaled, len(scaled), level) if scaled else None, len(scaled)))
    return falls


def suite_detection_lines(falls: Sequence[SuiteFall], alpha: float,
                          tolerance: float | None) -> list[str]:
    """The forecast's lines over the suite; ``tolerance``: the gate's limit on a drop of
    the mean normalised score, which the line weighs against chance."""
    lines = []
    for f in falls:
        if f.success is not None:
            lines.append(f"mlab gate: over the suite, {f.label}'s success (the mean over "
                         f"{f.tasks} task(s)) can show a fall of {f.success:.0%} or more as "
                         f"significant at alpha {alpha:g} with the selected trials")
        if f.normalised is None:
            if tolerance is not None:
                lines.append(f"mlab gate: over the suite, what {f.label}'s mean normalised "
                             "score moves by chance is unknown: the saved run has no task "
                             "with two or more normalised scores")
            continue
        line = (f"mlab gate: over the suite, {f.label}'s mean normalised score (over "
                f"{f.normalised_tasks} task(s)) can show a fall of {f.normalised:.2f} or more "
                f"as significant at alpha {alpha:g}")
        if tolerance is not None and tolerance < f.normalised:
            line += (f"; the gate's tolerance of {tolerance:g} is within that chance: a run "
                     "of an unchanged agent may trip it (run more trials, or raise it)")
        lines.append(line)
    return lines
