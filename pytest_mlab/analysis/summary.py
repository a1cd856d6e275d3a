"""A run's summary from its records: per task x agent x llm what k attempts would give
(pass@k, pass^k, best-of-k of the improvement) and the mean normalised score; per agent x
llm the mean normalised score over the suite.

Over the trials that ran (passed or failed), as every rate: errors and skips are the
harness's. Where a trial errored, pass@k and the normalised means are also given with the
errors counted as failed trials (0 normalised): a run whose infrastructure failed is not
flattered. A trial that ran without a valid submission counts as the starting point: 0
normalised, 0 improvement in best-of-k (an agent with k attempts keeps the starter where
every attempt broke it), so failures are never dropped from a mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import isfinite
from statistics import fmean
from typing import TYPE_CHECKING, Protocol

from pytest_mlab.analysis.attempts import (
    best_of_ks,
    normalised,
    pass_at_k,
    pass_at_ks,
    pass_hat_k,
    pass_hat_ks,
)
from pytest_mlab.analysis.groups import RAN, by_group
from pytest_mlab.analysis.suite_interval import suite_interval
from pytest_mlab.core.summary import AgentSummary, GroupSummary, RunSummary

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult


def _has_scale(result: TrialResult) -> bool:
    base, reference = result.baseline_mean, result.reference_mean
    return (base is not None and reference is not None
            and normalised(base, base, reference, result.direction) is not None)


def normalised_of(result: TrialResult) -> float | None:
    """(score - baseline_mean) / (reference_mean - baseline_mean) of a record; None where a
    part is missing or the reference is no better than the baseline."""
    score, base, reference = result.score, result.baseline_mean, result.reference_mean
    if score is None or base is None or reference is None:
        return None
    return normalised(score, base, reference, result.direction)


def trial_normalised(result: TrialResult) -> float | None:
    """The trial's normalised score, 0 where it left no valid submission; None where its
    task has no scale (no reference, no baseline, or a reference no better than it)."""
    if result.normalised_score is not None:
        return result.normalised_score
    return 0.0 if result.score is None and _has_scale(result) else None


def mean_normalised(ran: Sequence[TrialResult]) -> float | None:
    """The mean over trials that ran; None where any of them has no normalised score."""
    values = [trial_normalised(r) for r in ran]
    if not values or any(v is None for v in values):
        return None
    return fmean(v for v in values if v is not None)


def attempt_improvements(ran: Sequence[TrialResult]) -> list[float] | None:
    """Each trial's improvement, 0 where it left no valid submission; None where a trial
    has no baseline to improve on."""
    if any(r.baseline_mean is None or (r.improvement is None and r.score is not None)
           for r in ran):
        return None
    gains = [0.0 if r.improvement is None else r.improvement for r in ran]
    # A record read from disk may hold anything: no order, no best.
    return gains if all(isfinite(g) for g in gains) else None


def normalised_scores(ran: Sequence[TrialResult]) -> list[float]:
    """Each trial's normalised score (0 without a valid submission); empty where one of
    them has none (the task has no scale)."""
    values = [trial_normalised(r) for r in ran]
    return [] if any(v is None for v in values) else [v for v in values if v is not None]


def with_errors(ran: Sequence[TrialResult], errors: int) -> float | None:
    """The mean normalised score of the trials that ran and ``errors`` more counted as 0
    each; None without errors, or where the mean itself is None."""
    mean = mean_normalised(ran)
    if not errors or mean is None:
        return None
    return mean * len(ran) / (len(ran) + errors)


def reference_note(ran: Sequence[TrialResult]) -> str | None:
    """The first trial's sentence saying that its reference was not measured where its
    baseline was; None where no trial that ran has one."""
    return next((r.reference_note for r in ran if r.reference_note), None)


def pass_k_at(passed: int, n: int, k: int | None) -> tuple[int, float | None, float | None]:
    """k (``None``: n, every trial that ran), pass@k and pass^k; None where k > n."""
    k = k or n
    if k < 1:
        return k, None, None
    return k, pass_at_k(passed, n, k), pass_hat_k(passed, n, k)


def group_summary(trials: Sequence[TrialResult]) -> GroupSummary:
    first, ran = trials[0], [r for r in trials if r.outcome in RAN]
    n, passed = len(ran), sum(r.success for r in ran)
    errors = sum(r.outcome == "error" for r in trials)
    gains = attempt_improvements(ran)
    # Every k at once: a run of 1,000 trials per group would take seconds per group, and
    # minutes at 2,000, were each k's binomials made apart.
    return GroupSummary(
        task=first.task, agent=first.agent, llm=first.llm, n=n, passed=passed,
        unreproduced=sum(r.unreproduced for r in ran),
        pass_at_k=pass_at_ks(passed, n), pass_hat_k=pass_hat_ks(passed, n),
        best_of_k={} if gains is None else best_of_ks(gains),
        mean_normalised=mean_normalised(ran), errors=errors,
        normalised_scores=normalised_scores(ran),
        pass_at_k_with_errors=pass_at_ks(passed, n + errors) if errors else {},
        mean_normalised_with_errors=with_errors(ran, errors),
        reference_note=reference_note(ran),
    )


class TaskMean(Protocol):
    """What the suite's mean reads of a group (a ``GroupSummary`` or a report row)."""

    @property
    def task(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def llm(self) -> str | None: ...
    @property
    def mean_normalised(self) -> float | None: ...
    @property
    def errors(self) -> int: ...
    @property
    def mean_normalised_with_errors(self) -> float | None: ...
    @property
    def ran(self) -> int: ...
    @property
    def passed(self) -> int: ...
    @property
    def normalised_scores(self) -> list[float]: ...
    @property
    def reference_note(self) -> str | None: ...


def agent_summaries(groups: Iterable[TaskMean]) -> list[AgentSummary]:
    """Per agent x llm, the mean over tasks of each task's mean normalised score: every
    task weighs the same, however many trials it ran."""
    per_agent: dict[tuple[str, str | None], list[TaskMean]] = {}
    for group in groups:
        per_agent.setdefault((group.agent, group.llm), []).append(group)
    summaries = []
    for (agent, llm), tasks in sorted(per_agent.items(), key=lambda i: (i[0][0], i[0][1] or "")):
        scaled = [t for t in tasks if t.mean_normalised is not None]
        means = [t.mean_normalised for t in scaled if t.mean_normalised is not None]
        # Each task's mean with its errors as 0s (its own where none errored).
        counted = [t.mean_normalised if t.mean_normalised_with_errors is None
                   else t.mean_normalised_with_errors for t in scaled]
        errored = any(t.errors for t in tasks)
        success = suite_interval([[1.0] * t.passed + [0.0] * (t.ran - t.passed)
                                  for t in tasks])
        normalised = suite_interval([t.normalised_scores for t in scaled])
        summaries.append(AgentSummary(
            agent=agent, llm=llm, mean_normalised=fmean(means) if means else None,
            tasks=len(means),
            tasks_without=sorted(t.task for t in tasks if t.mean_normalised is None),
            tasks_reference_apart=sorted(t.task for t in scaled if t.reference_note),
            mean_normalised_with_errors=(fmean(v for v in counted if v is not None)
                                         if errored and means else None),
            success_rate=success.value if success else None,
            success_low=success.low if success else None,
            success_high=success.high if success else None,
            success_tasks_share=success.tasks_share if success else None,
            normalised_low=normalised.low if normalised else None,
            normalised_high=normalised.high if normalised else None,
            normalised_tasks_share=normalised.tasks_share if normalised else None,
        ))
    return summaries


def summarise(results: Iterable[TrialResult]) -> RunSummary:
    groups = [group_summary(trials) for trials in by_group(results).values()]
    errors = sum(group.errors for group in groups)
    return RunSummary(groups=groups, agents=agent_summaries(groups), errors=errors,
                      clean=errors == 0)
