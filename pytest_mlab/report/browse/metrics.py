"""The figures of one task x agent x llm in a run: success with its interval, pass@k,
pass^k, best-of-k, and the means the comparison puts side by side."""

from __future__ import annotations

from collections.abc import Sequence
from math import fsum
from typing import Any

from pytest_mlab.analysis.groups import RAN, by_group
from pytest_mlab.analysis.stats import wilson
from pytest_mlab.analysis.summary import agent_summaries, group_summary
from pytest_mlab.core.results import RunResults, TrialResult
from pytest_mlab.core.summary import GroupSummary

MAX_K = 10
"""pass@k and its kin are sent for k = 1 .. min(trials, MAX_K)."""


def _mean(values: Sequence[float]) -> float | None:
    return fsum(values) / len(values) if values else None


def attempts(summary: GroupSummary) -> list[dict[str, Any]]:
    """pass@k, pass^k and best-of-k of the improvement, as the run's summary has them."""
    return [
        {"k": k, "pass_at_k": summary.pass_at_k.get(k), "pass_hat_k": summary.pass_hat_k.get(k),
         "best_of_k": summary.best_of_k.get(k)}
        for k in range(1, min(summary.n, MAX_K) + 1)
    ]


def figures(results: Sequence[TrialResult]) -> dict[str, Any]:
    """What one group's trials add up to; errors and skips count apart from the rate.
    pass@k and the normalised score come from analysis.summary, as results.json has them."""
    ran = [r for r in results if r.outcome in RAN]
    passed = sum(r.success for r in ran)
    low, high = wilson(passed, len(ran))
    summary = group_summary(results)
    return {
        "trials": len(results), "ran": len(ran), "passed": passed,
        "rate": passed / len(ran) if ran else None, "interval": [low, high],
        "errors": sum(r.outcome == "error" for r in results),
        "unreproduced": sum(r.unreproduced for r in ran),
        "mean_improvement": _mean([r.improvement for r in ran if r.improvement is not None]),
        "mean_normalised": summary.mean_normalised,
        "mean_cost": _mean([r.cost for r in results]),
        "mean_steps": _mean([float(r.steps) for r in ran]),
        "attempts": attempts(summary),
    }


def trial_row(index: int, result: TrialResult) -> dict[str, Any]:
    """One trial in a list: what its record says, without the long texts."""
    return {
        "index": index, "task": result.task, "agent": result.agent, "llm": result.llm,
        "trial": result.trial, "outcome": result.outcome, "success": result.success,
        "score": result.score, "improvement": result.improvement, "steps": result.steps,
        "cost": result.cost, "seconds": result.seconds, "error_class": result.error_class,
        "ended_by": result.ended_by, "normalised": result.normalised_score,
        "flags": len(result.flags),
        "unreproduced": result.unreproduced,
    }


def group_table(run: RunResults) -> list[dict[str, Any]]:
    """Every task x agent x llm of the run with its figures."""
    return [
        {"task": group.task, "agent": group.agent, "llm": group.llm, **figures(members)}
        for group, members in by_group(run.results).items()
    ]


def agent_table(run: RunResults) -> list[dict[str, Any]]:
    """Per agent x llm, the mean normalised score over the suite (each task weighs the same)."""
    groups = [group_summary(members) for members in by_group(run.results).values()]
    return [summary.model_dump() for summary in agent_summaries(groups)]
