"""A trial's record: judged against the baseline when it ran, or saying why it did not."""

from __future__ import annotations

from pytest_mlab.analysis.summary import normalised_of
from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.reference import reference_mean
from pytest_mlab.core.results import Outcome, TrialResult
from pytest_mlab.trial.act import AgentRun
from pytest_mlab.trial.scoring import Scored, improvement, judgement
from pytest_mlab.trial.spec import TrialSpec

ENDINGS = {
    "step limit": "the step limit ended the trial",
    "time limit": "the time limit ended the trial",
    "LLM budget": "the LLM budget ended the trial",
    "prompt too long": "a prompt too long for the model ended the trial",
    "agent returned": "the agent ended its turn without a Final Answer",
}
"""How a turn that ended without a Final Answer is named in its verdict. As MLAgentBench's
eval, the final workspace is scored however the turn ended (docs/paper-parity.md, Limits)."""


def ending(ended_by: str, require_final_answer: bool) -> tuple[str, bool]:
    """The words naming how the turn ended (none after a Final Answer), and whether the
    trial may pass: with ``require_final_answer`` only a submitted Final Answer may."""
    words = ENDINGS.get(ended_by, "")
    if not require_final_answer or ended_by == "final answer":
        return words, True
    if ended_by != "agent returned":
        words = f"{words or 'the trial ended'} before any Final Answer"
    return f"{words}, which --mlab-require-final-answer requires", False


def blank_result(nodeid: str, spec: TrialSpec, threshold: float, outcome: Outcome) -> TrialResult:
    manifest = spec.task.manifest
    return TrialResult(
        nodeid=nodeid, task=spec.task.name, agent=spec.agent, llm=spec.llm, trial=spec.trial,
        metric=manifest.metric.name, direction=manifest.metric.direction, outcome=outcome,
        success=False, threshold=threshold, seed=spec.mlab_seed,
        analogue_of=manifest.mirrors or None, reference_mean=reference_mean(spec.task),
    )


def unrun_result(
    nodeid: str, spec: TrialSpec, threshold: float, outcome: Outcome, message: str,
    error_class: str | None = None,
) -> TrialResult:
    """The record of a trial that never reached its verdict: skipped, or an error."""
    result = blank_result(nodeid, spec, threshold, outcome)
    result.message, result.error_class = message, error_class
    return result


def judge(
    nodeid: str, spec: TrialSpec, run: AgentRun, scored: Scored | None,
    baseline: Baseline | None, threshold: float, isolation: str,
    require_final_answer: bool = False,
) -> TrialResult:
    """Passed or failed, with one sentence. ``scored`` is None when the agent crashed;
    ``baseline`` is None only while recording one: then any valid score passes."""
    task, metric = spec.task, spec.task.manifest.metric
    result = blank_result(nodeid, spec, threshold, "failed")
    result.final_answer_required = require_final_answer
    result.ended_by, result.steps, result.seconds = run.ended_by, run.steps, run.seconds
    result.isolation = isolation
    result.tokens_in, result.tokens_out = run.usage.tokens_in, run.usage.tokens_out
    result.cost = run.usage.cost
    if baseline is not None:
        result.baseline_mean, result.baseline_sd = baseline.mean, baseline.sd
        result.baseline_n = baseline.n
        result.baseline_source, result.baseline_machine = baseline.source, baseline.machine
        result.baseline_note = baseline.note
    if run.agent_error is not None or scored is None:
        result.message = f"{task.name}: the agent raised {run.agent_error} after {run.steps} steps"
        return result
    words, may_pass = ending(run.ended_by, require_final_answer)
    ended = f"{words}; " if words else ""
    if run.fault is not None:
        # The harness's fault, not the agent's: an error, with what was scored all the same.
        result.outcome, result.error_class = "error", run.fault_class
        ended = f"{run.fault} after {run.steps} steps; "
    if scored.invalid is not None or scored.score is None:
        result.message = f"{task.name}: {ended}invalid submission: {scored.invalid}"
        return result
    score = result.score = scored.score
    if baseline is None:
        if run.fault is None and may_pass:
            result.success, result.outcome = True, "passed"
        result.message = f"{task.name}: {ended}{metric.name}={score:.6g} recorded"
        return result
    gain = result.improvement = improvement(score, baseline.mean, metric.direction)
    result.normalised_score = normalised_of(result)
    sentence = judgement(metric.name, score, baseline.mean, gain, threshold)
    result.message = f"{task.name}: {ended}{sentence}"
    if run.fault is None:
        result.success = may_pass and gain >= threshold
        result.outcome = "passed" if result.success else "failed"
    return result
