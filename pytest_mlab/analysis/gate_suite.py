"""The gate over the suite: per agent x llm, the mean normalised score of the tasks both
runs gave one, and a tolerance on its drop (``--mlab-compare-normalised-drop``).

A plain tolerance, not a significance test: the mean over a suite of tasks moves little
with noise, and a drop of a tenth of the way from the baseline to the reference solution
(0.1) is what a user means to catch; the per-task tests of the gate stay as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import fmean
from typing import TYPE_CHECKING

from pytest_mlab.analysis.groups import RAN, Group
from pytest_mlab.analysis.summary import mean_normalised

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

    def __str__(self) -> str:
        return f"normalised:-{self.tolerance:g}"

    def check(self, comparison: AgentComparison) -> str | None:
        """The gate's one line if ``comparison`` drops by more than the tolerance, else None."""
        delta = comparison.delta
        # A drop of exactly the tolerance (0.5 -> 0.4 at 0.1) must not trip on rounding.
        if delta is None or not delta < -self.tolerance - 1e-9:
            return None
        return (f"gate tripped: {comparison.label} mean normalised score "
                f"{comparison.baseline_text} -> {comparison.current_text} "
                f"({comparison.delta_text} over {comparison.tasks} task(s); "
                f"limit -{self.tolerance:g})")

    def unchecked(self, comparisons: Sequence[AgentComparison]) -> str | None:
        """The gate's line when no agent had a task to compare: it did not check."""
        if any(c.delta is not None for c in comparisons):
            return None
        return ("gate could not check the normalised score: no task both runs ran has one in "
                "both (it needs a reference solution in the suite's validation.json and a "
                "baseline)")


def agent_comparisons(
    before: Mapping[Group, list[TrialResult]], after: Mapping[Group, list[TrialResult]],
    drop: NormalisedDrop | None = None,
) -> list[AgentComparison]:
    """Per agent x llm over the groups both runs hold: each task weighs the same."""
    pairs: dict[tuple[str, str | None], list[tuple[float, float]]] = {}
    for group in sorted(before.keys() & after.keys()):
        base = mean_normalised([r for r in before[group] if r.outcome in RAN])
        cur = mean_normalised([r for r in after[group] if r.outcome in RAN])
        scored = pairs.setdefault((group.agent, group.llm), [])
        if base is not None and cur is not None:
            scored.append((base, cur))
    comparisons = []
    for (agent, llm), scored in pairs.items():
        comparison = AgentComparison(
            agent, llm, fmean(b for b, _ in scored) if scored else None,
            fmean(c for _, c in scored) if scored else None, len(scored),
        )
        failure = drop.check(comparison) if drop is not None else None
        comparisons.append(replace(comparison, failure=failure))
    return sorted(comparisons, key=lambda c: (c.agent, c.llm or ""))
