"""How long each task's trials took, per agent and model, kept in the cache from run to
run: the reporter records it after each run, and the dispatcher orders the next run's
trials longest first by it (plugin/dispatch/longest_first.py)."""

from __future__ import annotations

import contextlib
import json
import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_mlab.core.atomic import write_atomic

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult

HISTORY = "trial-seconds.json"
"""In the cache folder: trial key -> seconds its trials took in the run that last ran it."""
TIMED_OUTCOMES = ("passed", "failed")
"""Trials that ran to their end; an error or a skip says nothing of a trial's length."""


def trial_key(task: str, agent: str, llm: str | None) -> str:
    return f"{task} {agent} {llm or '-'}"


def read_history(cache_dir: Path) -> dict[str, float]:
    """The recorded seconds per trial key; empty when the file is missing or unreadable
    (it only orders the items, so a damaged one costs nothing but the order)."""
    try:
        raw = json.loads((cache_dir / HISTORY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {str(key): float(value) for key, value in raw.items()
            if isinstance(value, int | float) and value >= 0}


def update_history(cache_dir: Path, results: Iterable[TrialResult]) -> None:
    """Record this run's median seconds of each trial key that ran to its end; a cache
    that cannot be written (read-only, shared) keeps its old history."""
    seconds: dict[str, list[float]] = defaultdict(list)
    for result in results:
        if result.outcome in TIMED_OUTCOMES and result.seconds > 0:
            seconds[trial_key(result.task, result.agent, result.llm)].append(result.seconds)
    if not seconds:
        return
    history = read_history(cache_dir)
    history.update({key: round(statistics.median(values), 3) for key, values in seconds.items()})
    with contextlib.suppress(OSError):
        write_atomic(cache_dir / HISTORY, json.dumps(history, indent=1, sort_keys=True) + "\n")
