"""``--mlab-reference=here``: the reference solution's score measured where a measured
baseline is: on this machine, with the data key of the trial's prepared data, once per task
version, machine facts and data, kept beside the baselines (or again every session, for a
per-session baseline). ``--mlab-validate`` keeps its solution runs the same way."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import fmean

from filelock import FileLock

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.core.machine import machine_facts, machine_id
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.agent import AgentContext
from pytest_mlab.env.data import PreparedData
from pytest_mlab.trial.agents import load_agent
from pytest_mlab.trial.baseline import measuring_leases
from pytest_mlab.trial.fresh import SandboxMaker, run_fresh
from pytest_mlab.trial.reference import Reference
from pytest_mlab.trial.spec import TRIAL_SEEDS, TrialSpec
from pytest_mlab.trial.validation import SOLUTION_TRIALS

SOLUTION_SEEDS = range(TRIAL_SEEDS, TRIAL_SEEDS + SOLUTION_TRIALS)
"""The seeds of the solution's runs: those --mlab-validate runs it with."""


def _solution_score(task: TaskSpec, data: PreparedData, make: SandboxMaker, k: int,
                    seed: int) -> float:
    agent = load_agent("oracle")(AgentContext(task=task.name, llm=None,
                                              solution_dir=task.solution_dir))
    result = run_fresh(task, data, agent, TrialSpec(task, "oracle", None, k, seed=seed), make)
    if result.score is None:
        raise InfrastructureError(
            f"{task.name}: the reference solution has no valid score here: {result.message}"
        )
    return result.score


def measure_solutions(
    task: TaskSpec, data: PreparedData, gpu_pool: tuple[str, ...], cache_dir: Path,
    sandboxes: Callable[[tuple[str, ...], tuple[int, ...]], SandboxMaker],
) -> list[float]:
    """Score the reference solution once per seed of ``SOLUTION_SEEDS``, on the leases a
    baseline is measured on (a per-session task's hold the whole machine)."""
    with measuring_leases(task, gpu_pool, cache_dir) as (gpus, cpus):
        make = sandboxes(gpus, cpus)
        return [_solution_score(task, data, make, k, seed)
                for k, seed in enumerate(SOLUTION_SEEDS)]


def measured(path: Path, measure: Callable[[], list[float]]) -> Reference:
    """The reference kept at ``path``, or measured there now; xdist workers share it. A
    worker waiting here must hold no lease: the one measuring may wait for all of them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock"):
        if path.exists():
            kept = json.loads(path.read_text(encoding="utf-8"))
        else:
            kept = {"scores": measure(), "machine": machine_id(),
                    "machine_facts": machine_facts()}
            write_atomic(path, json.dumps(kept))
    scores = [float(s) for s in kept["scores"]]
    return Reference(fmean(scores), len(scores), "here", str(kept.get("machine", "")))


def keep_solutions(task: TaskSpec, path: Path, scores: Sequence[float | None]) -> bool:
    """Keep a validation's solution runs as this machine's reference, when every one of
    them scored and none is kept yet."""
    valid = [s for s in scores if s is not None]
    if (not task.solution_dir.is_dir() or len(valid) < len(SOLUTION_SEEDS)
            or task.manifest.baseline.kind == "per-session"):  # measured in each session
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock"):
        if path.exists():
            return False
        write_atomic(path, json.dumps({"scores": valid, "machine": machine_id(),
                                       "machine_facts": machine_facts()}))
    return True
