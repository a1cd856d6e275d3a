"""Baseline records: what ``--mlab-record-baseline`` writes into a task's baseline.json."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from pytest_mlab.core.machine import differing_facts, machine_facts, machine_id
from pytest_mlab.core.task import TaskFormatError, TaskSpec
from pytest_mlab.core.version import __version__

BASELINE_SCHEMA_VERSION = 1


BaselineSource = Literal["recorded", "per-machine", "per-session"]


@dataclass(frozen=True)
class Baseline:
    mean: float
    sd: float
    n: int
    source: BaselineSource
    machine: str = ""
    """Where its scores were measured."""
    note: str = ""
    """Why it may not hold here: a recorded baseline from a machine whose facts differ."""


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
    machine_facts: dict[str, str] = {}
    """What the scores move with (core/machine.py); empty in records older than it."""

    def baseline(self) -> Baseline:
        return Baseline(self.mean, self.sd, self.n, "recorded", self.machine,
                        self.elsewhere())

    def elsewhere(self) -> str:
        """One sentence when this machine differs from the recording one, else ''."""
        if not self.machine_facts:
            return (f"recorded on {self.machine}, whose CPU and libraries were not noted; "
                    "it may not hold on this machine")
        differ = differing_facts(self.machine_facts, machine_facts())
        if not differ:
            return ""
        return (f"recorded on {self.machine}, which differs from this machine ("
                + "; ".join(differ) + "); its scores may not hold here")


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
        pytest_mlab_version=__version__, machine_facts=machine_facts(),
    )
    task.baseline_record.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return record
