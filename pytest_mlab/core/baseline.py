"""Baselines: recorded by one command into baseline.json, or measured per machine."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from filelock import FileLock
from pydantic import BaseModel, ConfigDict, ValidationError

from pytest_mlab import __version__
from pytest_mlab.core.machine import machine_id
from pytest_mlab.core.task import TaskFormatError, TaskSpec

BASELINE_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Baseline:
    mean: float
    sd: float
    n: int
    source: Literal["recorded", "measured"]


class BaselineRecord(BaseModel):
    """What ``--mlab-record-baseline`` writes beside task.toml."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = BASELINE_SCHEMA_VERSION
    task: str
    metric: str
    direction: Literal["higher", "lower"]
    mean: float
    sd: float
    n: int
    scores: list[float]
    task_hash: str
    command: str
    recorded_at: str
    machine: str
    pytest_mlab_version: str

    def baseline(self) -> Baseline:
        return Baseline(self.mean, self.sd, self.n, "recorded")


def summarize(scores: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single score)."""
    mean = statistics.fmean(scores)
    return mean, statistics.stdev(scores) if len(scores) > 1 else 0.0


def read_record(task: TaskSpec) -> BaselineRecord | None:
    path = task.baseline_record
    if not path.exists():
        return None
    try:
        record = BaselineRecord.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        message = f"{path}: not a baseline record written by pytest-mlab: {exc}"
        raise TaskFormatError(message) from None
    if record.metric != task.manifest.metric.name:
        raise TaskFormatError(
            f"{path}: key 'metric': {record.metric!r} but task.toml says "
            f"{task.manifest.metric.name!r}; record the baseline again"
        )
    return record


def write_record(task: TaskSpec, scores: Sequence[float], command: str) -> BaselineRecord:
    mean, sd = summarize(scores)
    record = BaselineRecord(
        task=task.name, metric=task.manifest.metric.name,
        direction=task.manifest.metric.direction, mean=mean, sd=sd, n=len(scores),
        scores=list(scores), task_hash=task.content_hash(), command=command,
        recorded_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"), machine=machine_id(),
        pytest_mlab_version=__version__,
    )
    task.baseline_record.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return record


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
