"""The gate over the suite: per agent x llm, the mean normalised score of the tasks both
runs gave one, and a tolerance on its drop (``--mlab-compare-normalised-drop``).

A plain tolerance by default: the mean over a suite of tasks moves little with noise, and a
drop of a tenth of the way from the baseline to the reference solution (0.1) is what a user
means to catch; the per-task tests of the gate stay as they are. With a significance level
(--mlab-compare-normalised-significant) the drop must also be significant: a one-sided
z-test whose variance, over the tasks both runs scored with two or more trials each, is
the sum of s_b^2 / n + s_c^2 / m per task over T squared (the tasks are the same in both
runs, so only the trials move the difference; analysis/suite_detectable.py forecasts it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from math import sqrt
from statistics import NormalDist, fmean, variance
from typing import TYPE_CHECKING

from pytest_mlab.analysis.groups import RAN, Group
from pytest_mlab.analysis.summary import normalised_scores

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult


@dataclass(frozen=True)
class AgentComparison:
    """One agent x llm's mean normalised score over the tasks both runs scored."""

    agent: str
    llm: str | None
    baseline: float | None
    current: float | None
    tasks: int
    """Tasks in both means: those with a normalised score in both runs."""
    failure: str | None = None
    p: float | None = None
    """The one-sided p of the drop; None where no task has two trials in both runs."""

    @property
    def label(self) -> str:
        return f"{self.agent}/{self.llm}" if self.llm else self.agent

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline

    @staticmethod
    def _text(value: float | None, sign: str = "") -> str:
        return "-" if value is None else f"{value:{sign}.2f}"

    @property
    def baseline_text(self) -> str:
        return self._text(self.baseline)

    @property
    def current_text(self) -> str:
        return self._text(self.current)

    @property
    def delta_text(self) -> str:
        return self._text(self.delta, "+")


@dataclass(frozen=True)
class NormalisedDrop:
    """The largest drop of an agent's mean normalised score over the suite (0.1)."""

    tolerance: float
    significant_at: float | None = None
    """Trip only on a drop with p below this, too; None: a plain tolerance."""

    def __str__(self) -> str:
        return f"normalised:-{self.tolerance:g}" + (
            " (significant)" if self.significant_at is not None else "")

    def check(self, comparison: AgentComparison) -> str | None:
        """The gate's one line if ``comparison`` drops by more than the tolerance, else None."""
        delta = comparison.delta
        # A drop of exactly the tolerance (0.5 -> 0.4 at 0.1) must not trip on rounding.
        if delta is None or not delta < -self.tolerance - 1e-9:
            return None
        p, level = comparison.p, self.significant_at
        if level is not None and (p is None or p >= level):
            return None
        tested = "" if level is None else f", p={p:.2g} < {level:g}"
        return (f"gate tripped: {comparison.label} mean normalised score "
                f"{comparison.baseline_text} -> {comparison.current_text} "
                f"({comparison.delta_text} over {comparison.tasks} task(s){tested}; "
                f"limit -{self.tolerance:g})")

    def unchecked(self, comparisons: Sequence[AgentComparison]) -> str | None:
        """The gate's line when no agent had a task to compare: it did not check."""
        if any(c.delta is not None for c in comparisons):
            return None
        return ("gate could not check the normalised score: no task both runs ran has one in "
                "both (it needs a reference solution in the suite's validation.json and a "
                "baseline)")


def _drop_p(pairs: Sequence[tuple[list[float], list[float]]], delta: float) -> float | None:
    """The one-sided p of a fall of ``delta`` in the mean over tasks, from each task's
    normalised scores in both runs (the tasks with two or more on each side)."""
    spread = [variance(b) / len(b) + variance(c) / len(c)
              for b, c in pairs if len(b) >= 2 and len(c) >= 2]
    if not spread:
        return None
    se = sqrt(sum(spread)) / len(spread)
    return NormalDist().cdf(delta / se) if se > 0 else float(delta >= 0)


def agent_comparisons(
    before: Mapping[Group, list[TrialResult]], after: Mapping[Group, list[TrialResult]],
    drop: NormalisedDrop | None = None,
) -> list[AgentComparison]:
    """Per agent x llm over the groups both runs hold: each task weighs the same."""
    pairs: dict[tuple[str, str | None], list[tuple[list[float], list[float]]]] = {}
    for group in sorted(before.keys() & after.keys()):
        base = normalised_scores([r for r in before[group] if r.outcome in RAN])
        cur = normalised_scores([r for r in after[group] if r.outcome in RAN])
        scored = pairs.setdefault((group.agent, group.llm), [])
        if base and cur:
            scored.append((base, cur))
    comparisons = []
    for (agent, llm), scored in pairs.items():
        comparison = AgentComparison(
            agent, llm, fmean(fmean(b) for b, _ in scored) if scored else None,
            fmean(fmean(c) for _, c in scored) if scored else None, len(scored),
        )
        delta = comparison.delta
        p = None if delta is None else _drop_p(scored, delta)
        comparison = replace(comparison, p=p)
        failure = drop.check(comparison) if drop is not None else None
        comparisons.append(replace(comparison, failure=failure))
    return sorted(comparisons, key=lambda c: (c.agent, c.llm or ""))
