"""A task's reference score: the mean of its reference solution's runs, as its suite's
validation.json keeps them (``pytest <suite> --mlab-validate`` writes them). It is the 1 of
the normalised score, the baseline being its 0."""

from __future__ import annotations

import json
import math
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_mlab.core.task import TaskSpec
from pytest_mlab.core.validation_fingerprint import VALIDATION


@lru_cache(maxsize=64)
def _rows(path: Path, mtime_ns: int) -> dict[str, Any]:
    """The rows of one validation.json, read once per version of the file."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        warnings.warn(f"{path}: not readable JSON ({exc}); no task of this suite gets a "
                      "normalised score", stacklevel=1)
        return {}
    if not isinstance(rows, dict):
        warnings.warn(f"{path}: expected an object of rows by task name, got "
                      f"{type(rows).__name__}; no task of this suite gets a normalised score",
                      stacklevel=1)
        return {}
    return rows


def recorded_reference(task: TaskSpec) -> tuple[list[float], str] | None:
    """The reference solution's valid runs in the row of ``task``, and the name of the
    machine that measured them ('' where the row does not say); None where the suite has no
    validation.json, the task no row, or the row no valid run."""
    path = task.root.parent / VALIDATION
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    row = _rows(path, mtime).get(task.name)
    runs = row.get("solution") if isinstance(row, dict) else None
    if not isinstance(runs, list):
        return None
    scores = [float(s) for s in runs
              if isinstance(s, int | float) and not isinstance(s, bool) and math.isfinite(s)]
    facts = row.get("machine") if isinstance(row, dict) else None
    machine = facts.get("machine") if isinstance(facts, dict) else None
    return (scores, machine if isinstance(machine, str) else "") if scores else None


def reference_mean(task: TaskSpec) -> float | None:
    """The mean of the reference solution's valid runs in the row of ``task``; None where
    there is none (``recorded_reference``)."""
    recorded = recorded_reference(task)
    return math.fsum(recorded[0]) / len(recorded[0]) if recorded else None
