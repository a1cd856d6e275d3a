"""Baselines made by running the unmodified starter: measured once per session and
machine (run times), or recorded into baseline.json from a run of the baseline agent."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from filelock import FileLock

from pytest_mlab.core.baseline import Baseline, summarize, write_record
from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.core.machine import machine_id
from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.task import TaskSpec, load_task
from pytest_mlab.env.agent import AgentContext
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.workspace import Workspace, provision_workspace
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.trial.agents import load_agent
from pytest_mlab.trial.run import TrialParts, run_trial
from pytest_mlab.trial.scoring import ScoringSandbox
from pytest_mlab.trial.spec import Overrides, TrialSpec


def measure_starter(
    task: TaskSpec, data: PreparedData, make_sandbox: Callable[[Workspace], Sandbox],
    scoring: Callable[[Workspace], ScoringSandbox] | None = None,
) -> float:
    """Score the unmodified starter, run by the baseline agent, through the trial path."""
    spec = TrialSpec(task, "baseline", None, 0)
    with tempfile.TemporaryDirectory(prefix=f"mlab-baseline-{task.name}-") as tmp:
        workspace = provision_workspace(task, data, Path(tmp) / "workspace")
        sandbox = make_sandbox(workspace)
        try:
            result = run_trial(TrialParts(
                nodeid=f"{task.name} (baseline measurement)", spec=spec, data=data,
                baseline=None, workspace=workspace, sandbox=sandbox,
                agent=load_agent("baseline")(AgentContext(task=task.name, llm=None)),
                limits=task.manifest.limits, threshold=Overrides().threshold_for(task),
                keep_workspace="none", scoring=scoring(workspace) if scoring else None,
            ))
        finally:
            sandbox.close()
    if result.score is None:
        raise InfrastructureError(
            f"{task.name}: the unmodified starter has no valid score: {result.message}"
        )
    return result.score


def measured_baseline(
    task: TaskSpec, cache_dir: Path, run_id: str, measure_once: Callable[[], float]
) -> Baseline:
    """Measure once per session and machine; xdist workers share the result."""
    folder = cache_dir / "baselines"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{task.name}-{task.content_hash()}-{machine_id()}-{run_id}.json"
    with FileLock(str(path) + ".lock"):
        if path.exists():
            scores = json.loads(path.read_text(encoding="utf-8"))["scores"]
        else:
            scores = [measure_once() for _ in range(task.manifest.baseline.runs)]
            path.write_text(json.dumps({"scores": scores}), encoding="utf-8")
    mean, sd = summarize(scores)
    return Baseline(mean, sd, len(scores), "measured")


def record_baselines(results: Sequence[TrialResult], root: Path, runs: int) -> list[str]:
    """Write baseline.json for each task of a ``--mlab-record-baseline=runs`` run; one
    line per task saying what was recorded, or why nothing was."""
    by_task: dict[str, list[TrialResult]] = {}
    for result in results:
        by_task.setdefault(result.nodeid.split("::")[0], []).append(result)
    lines = []
    for manifest, trials in sorted(by_task.items()):
        task = load_task(root / manifest)
        scores = [r.score for r in trials if r.score is not None and r.success]
        if task.manifest.baseline.kind == "per-machine":
            lines.append(f"{task.name}: per-machine baseline, measured every session; "
                         "nothing recorded")
        elif len(scores) < runs:
            lines.append(f"{task.name}: only {len(scores)} of {runs} runs scored; "
                         "nothing recorded")
        else:
            rel = task.root.relative_to(root).as_posix()
            command = f"pytest {rel} --agent=baseline --mlab-record-baseline={runs}"
            record = write_record(task, scores, command)
            lines.append(f"{task.name}: recorded {record.metric} mean={record.mean:.6g} "
                         f"sd={record.sd:.3g} n={record.n} in {task.baseline_record}")
    return lines
