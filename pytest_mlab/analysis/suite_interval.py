"""A suite-level figure with its uncertainty from both of its sources: which tasks the suite
holds (another suite of the same kind would hold others) and which trials each task drew.

The figure is the mean over tasks of each task's mean over its trials, so every task weighs
the same. Its 95% interval is a percentile bootstrap on two levels: draw the tasks with
replacement, then within each drawn task its trials with replacement. The variance split
says how much of the width each source gives: the tasks' part is the variance of the task
means over the suite (var(m_t) / T), the trials' part the within-task variance of each
mean (sum_t s_t^2 / n_t / T^2), both as the bootstrap would find them (no n - 1).
Intervals over trials alone, as MLE-bench's over seeds, leave the tasks' part out.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from math import ceil, floor
from statistics import fmean, pvariance

DRAWS = 2000
SEED = 20261205
_CHUNK = 200


@dataclass(frozen=True)
class SuiteInterval:
    value: float
    low: float
    high: float
    tasks_share: float | None
    """The share of the figure's variance that comes from which tasks the suite holds; the
    rest comes from the trials. None where both parts are 0 (nothing varies)."""


def _bootstrap(per_task: list[list[float]], draws: int, seed: int) -> list[float]:
    """The suite figure of ``draws`` two-level resamples."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = np.array([len(t) for t in per_task])
    values = np.zeros((len(per_task), int(sizes.max())))
    for row, trials in enumerate(per_task):
        values[row, :len(trials)] = trials
    width, flat, even = values.shape[1], values.ravel(), bool((sizes == sizes.max()).all())
    out: list[float] = []
    for start in range(0, draws, _CHUNK):
        count = min(_CHUNK, draws - start)
        tasks = rng.integers(0, len(per_task), (count, len(per_task)))
        n = sizes[tasks]  # (count, T): the drawn tasks' trial counts
        picks = rng.random((count, len(per_task), width))
        picks *= n[..., None]
        where = picks.astype(np.intp)
        where += (tasks * width)[..., None]
        drawn = np.take(flat, where)
        if not even:  # else every pick is inside its task's trials
            drawn *= np.arange(width) < n[..., None]
        means = drawn.sum(axis=2) / n
        out += means.mean(axis=1).tolist()
    return out


def suite_interval(per_task: Sequence[Sequence[float]], *, draws: int = DRAWS,
                   seed: int = SEED) -> SuiteInterval | None:
    """``per_task``: each task's per-trial values (1.0/0.0 for success, or normalised
    scores); tasks with no trial are left out. None where no task has a trial."""
    return _interval(tuple(tuple(map(float, t)) for t in per_task if t), draws, seed)


# Kept: the run's summary, report.html, the markdown summary and the terminal each ask for
# the same intervals of one run, and the bootstrap of 10,000 trials takes most of a second.
@functools.lru_cache(maxsize=32)
def _interval(per_task: tuple[tuple[float, ...], ...], draws: int,
              seed: int) -> SuiteInterval | None:
    tasks = [list(trials) for trials in per_task]
    if not tasks:
        return None
    means = [fmean(t) for t in tasks]
    value = fmean(means)
    from_tasks = pvariance(means) / len(tasks)
    from_trials = sum(pvariance(t) / len(t) for t in tasks) / len(tasks) ** 2
    total = from_tasks + from_trials
    resampled = sorted(_bootstrap(tasks, draws, seed))
    last = len(resampled) - 1
    low, high = resampled[floor(0.025 * last)], resampled[ceil(0.975 * last)]
    return SuiteInterval(value, low, high, from_tasks / total if total > 0 else None)
