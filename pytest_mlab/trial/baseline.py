"""Baselines made by running the unmodified starter: measured on this machine (once per
task version, machine facts and data, kept in the cache; or again every session, for run
times), or recorded into baseline.json from a run of the baseline agent."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.baseline import Baseline, BaselineSource, summarize, write_record
from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.core.machine import facts_key, machine_facts, machine_id
from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.task import TaskSpec, load_task
from pytest_mlab.env.agent import AgentContext
from pytest_mlab.env.data import PreparedData
from pytest_mlab.trial.agents import load_agent
from pytest_mlab.trial.cpus import cpu_lock_dir, hold_machine, lease_cores
from pytest_mlab.trial.fresh import SandboxMaker, run_fresh
from pytest_mlab.trial.gpu import gpu_lock_dir, lease
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


@contextmanager
def measuring_leases(
    task: TaskSpec, gpu_pool: tuple[str, ...], cache_dir: Path
) -> Iterator[tuple[tuple[str, ...], tuple[int, ...]]]:
    """The GPUs and cores the starter is measured on, as many as a trial of the task
    holds. A per-session baseline times the starter, so the whole machine is held
    meanwhile: another trial's load would make it low, and an unchanged starter pass.
    The GPUs come first, as a trial's do, so that no lease waits on another in a circle;
    a worker holding cores of its own must not measure (cpus.py refuses)."""
    with lease(gpu_pool, task.manifest.resources.gpus, gpu_lock_dir(cache_dir)) as gpus:
        hold = hold_machine if task.manifest.baseline.kind == "per-session" else lease_cores
        with hold(task.manifest.resources.cpus, cpu_lock_dir(cache_dir)) as cpus:
            yield gpus, cpus


def measure_starters(
    task: TaskSpec, data: PreparedData, seeds: Sequence[int], gpu_pool: tuple[str, ...],
    cache_dir: Path, sandboxes: Callable[[tuple[str, ...], tuple[int, ...]], SandboxMaker],
) -> list[float]:
    """Score the unmodified starter once per seed, all on one set of measuring leases,
    in the sandboxes ``sandboxes`` makes for the leased GPUs and cores."""
    with measuring_leases(task, gpu_pool, cache_dir) as (gpus, cpus):
        make = sandboxes(gpus, cpus)
        return [measure_starter(task, data, make, seed) for seed in seeds]


def measured_path(task: TaskSpec, cache_dir: Path, data: PreparedData, run_id: str,
                  kind: str = "baselines") -> Path:
    """Where a measured baseline (or, with ``kind="references"``, the reference solution's
    scores) is kept: per-machine ones across sessions, per-session ones under the session's
    run id. The prepared data's folder names the task's version and the data key it was
    drawn with (env/data.py)."""
    folder = cache_dir / kind
    if task.manifest.baseline.kind == "per-session":
        return folder / f"{task.name}-{task.content_hash()}-{machine_id()}-{run_id}.json"
    return folder / f"{data.public.parent.name}-{facts_key(machine_facts())}.json"


def runs_wanted(task: TaskSpec, asked: int | None) -> int:
    """How many runs of the starter a measured baseline is made of: ``asked``
    (--mlab-baseline-runs) where given, else the task's own number."""
    return asked if asked is not None else task.manifest.baseline.runs


def runs_missing(path: Path, runs: int) -> int:
    """How many more runs of the starter the baseline kept at ``path`` needs."""
    if not path.exists():
        return runs
    return max(0, runs - len(json.loads(path.read_text(encoding="utf-8"))["scores"]))


def measured_baseline(
    task: TaskSpec, path: Path, measure: Callable[[Sequence[int]], list[float]], runs: int
) -> Baseline:
    """Read the baseline kept at ``path``, or measure it, one run per seed 0, 1, ...;
    xdist workers share the result. One kept from fewer runs than ``runs`` gets the
    missing seeds' runs added; one kept from more is used whole (its n says so). A worker
    waiting here must hold no lease: the one measuring may wait for all of them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock"):
        if path.exists():
            kept: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        else:
            kept = {"scores": [], "machine": machine_id(), "machine_facts": machine_facts()}
        scores: list[float] = kept["scores"]
        if len(scores) < runs:
            scores += measure(range(len(scores), runs))
            write_atomic(path, json.dumps(kept))
    mean, sd = summarize(scores)
    kind = task.manifest.baseline.kind
    source: BaselineSource = "per-session" if kind == "per-session" else "per-machine"
    return Baseline(mean, sd, len(scores), source, str(kept.get("machine", "")))


def keep_measured(task: TaskSpec, path: Path, scores: Sequence[float]) -> bool:
    """Keep a validation's starter scores (seeds 0, 1, ...) as this machine's baseline,
    when they are the runs a trial would measure and none is kept yet."""
    runs = task.manifest.baseline.runs
    if task.manifest.baseline.kind != "per-machine" or len(scores) < runs:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock"):
        if path.exists():
            return False
        kept = {"scores": list(scores[:runs]), "machine": machine_id(),
                "machine_facts": machine_facts()}
        write_atomic(path, json.dumps(kept))
    return True


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
        if task.manifest.baseline.kind == "none":
            lines.append(f"{task.name}: no baseline, as its starter writes no valid "
                         "submission; nothing recorded")
        elif task.manifest.baseline.kind != "recorded":
            lines.append(f"{task.name}: {task.manifest.baseline.kind} baseline, measured "
                         "where the trial runs; nothing recorded")
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
