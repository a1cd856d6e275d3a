"""One row per task x agent x llm: success with its interval, improvement, cost and time."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from pytest_mlab.analysis.groups import RAN, by_group
from pytest_mlab.analysis.stats import wilson
from pytest_mlab.analysis.summary import (
    mean_normalised,
    normalised_scores,
    pass_k_at,
    reference_note,
    with_errors,
)
from pytest_mlab.core.results import TrialResult


class Row(BaseModel):
    """Rates count the trials that ran (passed or failed); errors and skips are the
    harness's, not the agent's, so they are counted apart, and where a trial errored each
    rate is given again with its errors counted as failed trials. Means are over trials that ran.
    Unreproduced trials are counted apart too: in the rate as judged (failed with
    --mlab-strict), and in a count of their own beside it."""

    task: str
    analogue_of: str | None = None
    """The MLAgentBench task this one stands in for (a lite task), else None."""
    agent: str
    llm: str | None
    label: str
    """The agent, with its LLM where it has one: a chart's series."""
    trials: int
    ran: int
    passed: int
    errors: int
    skipped: int
    unreproduced: int = 0
    """Trials that ran whose entry script, run again, did not remake their submission."""
    flagged: int = 0
    """Trials that ran in which a rule check found something (their flags)."""
    success_rate: float | None
    success_low: float | None
    success_high: float | None
    valid: int
    """Trials that ran and left a scored submission."""
    valid_rate: float | None
    improvements: list[float]
    """Improvement of each valid submission over the baseline, in node-id order."""
    mean_improvement: float | None
    pass_k: int
    """The k of ``pass_at_k`` and ``pass_hat_k``: --mlab-pass-k, else the trials that ran."""
    pass_at_k: float | None
    pass_hat_k: float | None
    mean_normalised: float | None
    """Trials without a valid submission count as 0 (see analysis/summary.py)."""
    success_with_errors: float | None = None
    """passed / (ran + errors): each error a failed trial; None where none errored."""
    pass_at_k_with_errors: float | None = None
    """pass@k over the trials that ran and errored, each error failed (k as above)."""
    mean_normalised_with_errors: float | None = None
    """The mean normalised score with each error as 0; None where none errored."""
    normalised_scores: list[float] = []
    """Each trial's normalised score that ran; empty where the task has no scale."""
    reference_note: str | None = None
    """Where the task's reference was not measured where its baseline was, why not."""
    mean_steps: float | None
    mean_seconds: float | None
    mean_tokens: float | None
    mean_cost: float | None


def label(agent: str, llm: str | None) -> str:
    return f"{agent}/{llm}" if llm else agent


def task_label(row: Row) -> str:
    """The task, marked when it is an analogue: ``titanic ≈ spaceship-titanic``."""
    return f"{row.task} ≈ {row.analogue_of}" if row.analogue_of else row.task


def analogue_note(rows: Sequence[Row]) -> str | None:
    """What the mark means, when a table holds analogues."""
    if not any(row.analogue_of for row in rows):
        return None
    return ("≈: an offline analogue of the MLAgentBench task named after it; its numbers "
            "are this suite's, not comparable with the paper's.")


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _row(
    task: str, agent: str, llm: str | None, group: list[TrialResult], pass_k: int | None
) -> Row:
    ran = [r for r in group if r.outcome in RAN]
    passed = sum(r.success for r in ran)
    valid = [r for r in ran if r.score is not None]
    improvements = [r.improvement for r in valid if r.improvement is not None]
    low, high = wilson(passed, len(ran)) if ran else (None, None)
    k, at_k, hat_k = pass_k_at(passed, len(ran), pass_k)
    errors = sum(r.outcome == "error" for r in group)
    counted = len(ran) + errors
    return Row(
        task=task, analogue_of=next((r.analogue_of for r in group if r.analogue_of), None),
        agent=agent, llm=llm, label=label(agent, llm), trials=len(group),
        ran=len(ran), passed=passed,
        errors=errors,
        skipped=sum(r.outcome == "skipped" for r in group),
        unreproduced=sum(r.unreproduced for r in ran),
        flagged=sum(bool(r.flags) for r in ran),
        success_rate=passed / len(ran) if ran else None, success_low=low, success_high=high,
        valid=len(valid), valid_rate=len(valid) / len(ran) if ran else None,
        improvements=improvements, mean_improvement=_mean(improvements),
        pass_k=k, pass_at_k=at_k, pass_hat_k=hat_k, mean_normalised=mean_normalised(ran),
        success_with_errors=passed / counted if errors else None,
        pass_at_k_with_errors=pass_k_at(passed, counted, k)[1] if errors else None,
        mean_normalised_with_errors=with_errors(ran, errors),
        normalised_scores=normalised_scores(ran), reference_note=reference_note(ran),
        mean_steps=_mean([r.steps for r in ran]),
        mean_seconds=_mean([r.seconds for r in ran]),
        mean_tokens=_mean([r.tokens_in + r.tokens_out for r in ran]),
        mean_cost=_mean([r.cost for r in ran]),
    )


def rows_of(results: Iterable[TrialResult], pass_k: int | None = None) -> list[Row]:
    """Rows sorted by task, then agent and llm; ``pass_k`` None: pass@n."""
    groups = by_group(sorted(results, key=lambda r: r.nodeid))
    return [_row(group.task, group.agent, group.llm, trials, pass_k)
            for group, trials in groups.items()]
