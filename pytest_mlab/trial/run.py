"""One trial from a provisioned workspace to its record: the agent acts in an
environment, the final workspace is scored and judged, and the record is written.

Everything here runs without pytest; the plugin's fixtures only provide the parts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.run_files import TrialFiles
from pytest_mlab.core.task import TrialLimits
from pytest_mlab.core.trace import Trace
from pytest_mlab.env.actions.options import ActionOptions
from pytest_mlab.env.agent import Agent
from pytest_mlab.env.control import TrialControl
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.progress import ProgressFile
from pytest_mlab.env.resume import ResumePoint, resume_into
from pytest_mlab.env.snapshotter import Snapshotter
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.llm import LLMClient
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.trial.act import AgentRun, let_agent_act
from pytest_mlab.trial.judge import judge
from pytest_mlab.trial.reference import Reference, place, recorded
from pytest_mlab.trial.reproduction_run import Reproducer, reproduce
from pytest_mlab.trial.reproduction_verdict import judge_reproduction
from pytest_mlab.trial.rule_facts import rule_facts
from pytest_mlab.trial.rule_judge import judge_trajectory
from pytest_mlab.trial.rules import TrialEvidence, check_trial
from pytest_mlab.trial.scoring import ScoringSandbox, score_workspace
from pytest_mlab.trial.spec import Retention, TrialSpec
from pytest_mlab.trial.step_scores import score_steps


@dataclass(frozen=True)
class TrialParts:
    """What a trial is run with; the plugin's fixtures make each part."""

    nodeid: str
    spec: TrialSpec
    data: PreparedData
    baseline: Baseline | None
    """None while a baseline is being recorded or measured: any valid score passes."""
    workspace: Workspace
    sandbox: Sandbox
    agent: Agent
    limits: TrialLimits
    threshold: float
    llm: LLMClient | None = None
    files: TrialFiles | None = None
    """Where the trace, snapshots and record go; None records nothing."""
    resume: bool = False
    """Continue from the trial's last snapshot, or keep its record if it was judged."""
    score_steps: int | None = None
    keep_workspace: Retention = "failed"
    ask: Callable[[str], str] | None = None
    """Answers Request Help; None outside an interactive run."""
    control: TrialControl | None = None
    """Lets the harness stop the trial from outside (a timeout)."""
    show_progress: Callable[[dict[str, Any]], None] | None = None
    """A live display of each step, in this process (the files serve other processes)."""
    action_options: ActionOptions = field(default_factory=ActionOptions)
    scoring: ScoringSandbox | None = None
    """Where the scorer may run the workspace's code; None: scorers that need it fail."""
    require_final_answer: bool = False
    """Fail a trial whose turn ended without a Final Answer, however good its workspace."""
    harness_paths: tuple[Path, ...] = ()
    """Folders of the harness (its cache, its reports) that the rule checks flag a step for
    naming; the run's folder and the task's prepared data are always among them."""
    rule_judge: LLMClient | None = None
    """The client of --mlab-judge-llm, which asks the rule checker's questions of the
    trajectory; None: only the checks that read the trace run."""
    reproducer: Reproducer | None = None
    """Run the entry script again on a clean copy of the final workspace and score it too;
    None: the trial is not reproduced."""
    reference: Reference | None = None
    """The 1 of the normalised score (trial/reference.py); None: validation.json's."""


def run_trial(parts: TrialParts) -> TrialResult:
    """Run, score and judge one trial, and write its record where ``parts.files`` says."""
    files = parts.files
    if files is not None and parts.resume and files.result.exists():
        return TrialResult.model_validate_json(files.result.read_text(encoding="utf-8"))
    resume = resume_into(files, parts.workspace) if files and parts.resume else None
    if files is not None:
        harness = (*parts.harness_paths, files.run_dir, parts.data.public.parent)
        rule_facts(parts.spec.task, parts.workspace, harness).write(files.rule_facts)
    run = _act(parts, resume)
    # Nothing may write to the workspace after the turn: what is scored is what it left.
    # Optional for a plugin's own sandbox, as close is; its attestation says what it holds.
    stop_all = getattr(parts.sandbox, "stop_all", None)
    if stop_all is not None:
        stop_all()
    task = parts.spec.task
    scored = None if run.agent_error else score_workspace(
        task, parts.workspace, parts.data, parts.scoring
    )
    result = judge(parts.nodeid, parts.spec, run, scored, parts.baseline, parts.threshold,
                   parts.sandbox.isolation, parts.require_final_answer)
    place(result, parts.reference or recorded(task), parts.baseline)
    _reproduce(parts, result)
    result.resumed_from = len(resume.steps) if resume else None
    keep = parts.keep_workspace
    if keep == "all" or (keep == "failed" and not result.success):
        result.workspace = str(parts.workspace.root)
    if files is not None:
        result.trace = str(files.trace)
        if run.agent_traceback is not None:
            files.traceback.write_text(run.agent_traceback, encoding="utf-8")
            result.traceback = str(files.traceback)
        if parts.score_steps:
            result.step_scores = score_steps(task, parts.data, files, parts.score_steps,
                                             parts.scoring)
        _check_rules(parts, files, result)
        files.result.write_text(result.model_dump_json(), encoding="utf-8")
    return result


def _check_rules(parts: TrialParts, files: TrialFiles, result: TrialResult) -> None:
    """Record what the rule checks (and the LLM judge, if asked for) find in the trace."""
    evidence = TrialEvidence.of(files)
    flags = check_trial(evidence)
    if parts.rule_judge is not None:
        verdict = judge_trajectory(parts.rule_judge, evidence.facts.research_problem,
                                   evidence.steps)
        flags += verdict.flags
        if verdict.failure:
            result.message = f"{result.message} (the LLM judge: {verdict.failure})"
    result.flags = flags
def _reproduce(parts: TrialParts, result: TrialResult) -> None:
    """Reproduce a trial the agent finished with a scored submission (a fault's trial is an
    error already, and a baseline being recorded is the entry script's own run)."""
    reproducer, baseline = parts.reproducer, parts.baseline
    result.strict = reproducer is not None and reproducer.strict
    if reproducer is None or baseline is None or result.score is None or (
            result.outcome == "error"):
        return
    task = parts.spec.task
    again = reproduce(task, parts.workspace, parts.data, reproducer, parts.scoring)
    judge_reproduction(result, again, baseline, task.manifest.entry, reproducer.strict)


def _act(parts: TrialParts, resume: ResumePoint | None) -> AgentRun:
    files, workspace, task = parts.files, parts.workspace, parts.spec.task
    snapshots = trace = progress = env = None
    if files is not None:
        # The scored steps keep all their content, so that they can be restored and scored.
        snapshots = Snapshotter.of(workspace, files.objects, files.manifests,
                                   keep_every=parts.score_steps)
        trace = Trace(files.trace, append=resume is not None)
        progress = ProgressFile(files.progress, parts.spec.name, parts.show_progress)
    try:
        env = Environment(
            research_problem=task.manifest.research_problem, entry=task.manifest.entry,
            workspace=workspace, sandbox=parts.sandbox, limits=parts.limits, trace=trace,
            snapshots=snapshots, resume=resume, ask=parts.ask, llm=parts.llm,
            progress=progress, control=parts.control, action_options=parts.action_options,
        )
        return let_agent_act(parts.agent, env)
    finally:
        if env is not None:
            env.close()
        if snapshots is not None:
            snapshots.close()
