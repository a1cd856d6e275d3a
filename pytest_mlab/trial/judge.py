"""Turn a finished trial into its result record: passed or failed, with one sentence."""

from __future__ import annotations

from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.results import TrialResult
from pytest_mlab.trial.scoring import improvement, judgement
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.trial.act import TrialRun

LIMITS = ("step limit", "time limit", "LLM budget")


def verdict(
    nodeid: str,
    task: TaskSpec,
    agent: str,
    llm: str | None,
    trial: int,
    run: TrialRun,
    baseline: Baseline | None,
    threshold: float,
    isolation: str,
) -> TrialResult:
    """``baseline`` is None only while recording one: then any valid score passes."""
    metric = task.manifest.metric
    result = TrialResult(
        nodeid=nodeid, task=task.name, agent=agent, llm=llm, trial=trial,
        metric=metric.name, direction=metric.direction, outcome="failed", success=False,
        threshold=threshold, ended_by=run.ended_by, steps=run.steps, seconds=run.seconds,
        isolation=isolation, tokens_in=run.usage.tokens_in, tokens_out=run.usage.tokens_out,
        cost=run.usage.cost,
    )
    if baseline is not None:
        result.baseline_mean, result.baseline_sd = baseline.mean, baseline.sd
        result.baseline_n = baseline.n
    if run.agent_error is not None or run.scored is None:
        result.message = f"{task.name}: the agent raised {run.agent_error} after {run.steps} steps"
        return result
    ended = f"the {run.ended_by} ended the trial; " if run.ended_by in LIMITS else ""
    if run.scored.invalid is not None or run.scored.score is None:
        result.message = f"{task.name}: {ended}invalid submission: {run.scored.invalid}"
        return result
    score = result.score = run.scored.score
    if baseline is None:
        result.success, result.outcome = True, "passed"
        result.message = f"{task.name}: {metric.name}={score:.6g} recorded"
        return result
    gain = result.improvement = improvement(score, baseline.mean, metric.direction)
    sentence = judgement(metric.name, score, baseline.mean, gain, threshold)
    if ended:
        result.message = f"{task.name}: {ended}{sentence}"
        return result
    result.success = gain >= threshold
    result.outcome = "passed" if result.success else "failed"
    result.message = f"{task.name}: {sentence}"
    return result
