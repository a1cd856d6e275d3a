"""The figures of one task x agent x llm in a run: success with its interval, pass@k,
pass^k, best-of-k, and the means the comparison puts side by side. Each is the terminal's
and report.html's own figure (report/rows.py, analysis/summary.py), so every place that
shows a run says the same."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_mlab.analysis.groups import RAN, by_group
from pytest_mlab.analysis.stats import wilson
from pytest_mlab.analysis.summary import agent_summaries, group_summary
from pytest_mlab.core.plain_text import printable
from pytest_mlab.core.results import RunResults, TrialResult
from pytest_mlab.core.summary import GroupSummary
from pytest_mlab.report.rows import Row, rows_of

MAX_K = 50
"""pass@k and its kin are sent for k = 1 .. min(trials, MAX_K), and for k = n always."""
SHORT_MESSAGE = 90
"""Characters of a trial's message in a list; the whole message is its tooltip."""


def rate(results: Sequence[TrialResult]) -> dict[str, Any]:
    """Success over the trials that ran, with its Wilson interval (None where none ran),
    and the errors beside it: ``success_with_errors`` counts each as a failed trial, as
    the terminal's "success w/ errors" column does."""
    ran = [r for r in results if r.outcome in RAN]
    passed = sum(r.success for r in ran)
    errors = sum(r.outcome == "error" for r in results)
    counted = len(ran) + errors
    return {
        "trials": len(results), "ran": len(ran), "passed": passed, "errors": errors,
        "skipped": sum(r.outcome == "skipped" for r in results),
        "rate": passed / len(ran) if ran else None,
        "interval": list(wilson(passed, len(ran))) if ran else None,
        "success_with_errors": passed / counted if errors else None,
        "unreproduced": sum(r.unreproduced for r in ran),
    }


def attempts(summary: GroupSummary) -> list[dict[str, Any]]:
    """pass@k, pass^k and best-of-k of the improvement, as the run's summary has them."""
    ks = sorted(set(range(1, min(summary.n, MAX_K) + 1)) | ({summary.n} if summary.n else set()))
    return [
        {"k": k, "pass_at_k": summary.pass_at_k.get(k), "pass_hat_k": summary.pass_hat_k.get(k),
         "best_of_k": summary.best_of_k.get(k),
         "pass_at_k_with_errors": summary.pass_at_k_with_errors.get(k)}
        for k in ks
    ]


def figures(results: Sequence[TrialResult], summary: GroupSummary | None = None,
            row: Row | None = None) -> dict[str, Any]:
    """What one group's trials add up to (``summary`` and ``row``: their ``group_summary``
    and ``rows_of``, where made already); errors and skips count apart from the rate. ``k``
    is the terminal's default k: every trial that ran."""
    row = row or rows_of(results)[0]
    summary = summary or group_summary(results)
    return {
        **rate(results), "k": row.pass_k,
        "mean_improvement": row.mean_improvement,
        "mean_normalised": row.mean_normalised,
        "mean_normalised_with_errors": row.mean_normalised_with_errors,
        "mean_cost": row.mean_cost, "mean_steps": row.mean_steps,
        "attempts": attempts(summary),
    }


def trial_row(index: int, result: TrialResult) -> dict[str, Any]:
    """One trial in a list: what its record says, its message shortened (whole in
    ``message_full``) so that a crash and a bad submission read apart."""
    message = " ".join(printable(result.message).split())
    short = message if len(message) <= SHORT_MESSAGE else message[:SHORT_MESSAGE - 1] + "…"
    return {
        "index": index, "task": result.task, "agent": result.agent, "llm": result.llm,
        "trial": result.trial, "outcome": result.outcome, "success": result.success,
        "score": result.score, "improvement": result.improvement, "steps": result.steps,
        "cost": result.cost, "seconds": result.seconds, "error_class": result.error_class,
        "ended_by": result.ended_by, "normalised": result.normalised_score,
        "message": short, "message_full": result.message,
        "flags": len(result.flags),
        "unreproduced": result.unreproduced,
    }


def group_table(run: RunResults, summaries: Sequence[GroupSummary] | None = None,
                rows: Sequence[Row] = ()) -> list[dict[str, Any]]:
    """Every task x agent x llm of the run with its figures; ``summaries`` (each group's
    ``group_summary``, in ``by_group``'s order) and ``rows`` (the run's ``rows_of``): where
    made already."""
    groups = by_group(run.results)
    made = summaries or [group_summary(members) for members in groups.values()]
    row = {(r.task, r.agent, r.llm): r for r in rows}
    return [
        {"task": group.task, "agent": group.agent, "llm": group.llm,
         **figures(members, summary, row.get((group.task, group.agent, group.llm)))}
        for (group, members), summary in zip(groups.items(), made, strict=True)
    ]


def agent_table(summaries: Sequence[GroupSummary]) -> list[dict[str, Any]]:
    """Per agent x llm, the mean normalised score over the suite (each task weighs the same)."""
    return [summary.model_dump() for summary in agent_summaries(summaries)]


def run_tables(run: RunResults, rows: Sequence[Row] = ()) -> dict[str, Any]:
    """The run's group and agent tables, each group summed up once for both; ``rows``: the
    run's ``rows_of``, where made already."""
    summaries = [group_summary(members) for members in by_group(run.results).values()]
    return {"groups": group_table(run, summaries, rows), "agents": agent_table(summaries)}
