"""Baselines made by running the unmodified starter: measured once per session and
machine (run times), or recorded into baseline.json from a run of the baseline agent."""

from __future__ import annotations

import json
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
from pytest_mlab.trial.agents import load_agent
from pytest_mlab.trial.fresh import SandboxMaker, run_fresh
from pytest_mlab.trial.spec import TrialSpec


def measure_starter(
    task: TaskSpec, data: PreparedData, make_sandbox: SandboxMaker, seed: int
) -> float:
    """Score the unmodified starter, run by the baseline agent, through the trial path."""
    agent = load_agent("baseline")(AgentContext(task=task.name, llm=None))
    spec = TrialSpec(task, "baseline", None, seed, seed=seed)
    result = run_fresh(task, data, agent, spec, make_sandbox)
    if result.score is None:
        raise InfrastructureError(
            f"{task.name}: the unmodified starter has no valid score: {result.message}"
        )
    return result.score


def measured_baseline(
    task: TaskSpec, cache_dir: Path, run_id: str, measure_once: Callable[[int], float]
) -> Baseline:
    """Measure once per session and machine, one run per seed 0, 1, ...; xdist workers
    share the result."""
    folder = cache_dir / "baselines"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{task.name}-{task.content_hash()}-{machine_id()}-{run_id}.json"
    with FileLock(str(path) + ".lock"):
        if path.exists():
            scores = json.loads(path.read_text(encoding="utf-8"))["scores"]
        else:
            scores = [measure_once(seed) for seed in range(task.manifest.baseline.runs)]
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
