"""Longest trials first, when trials run side by side.

A parallel run ends when its last trial does. xdist never hands the last two items of a
worker to an idle one, so a long trial that starts late runs alone while the other
workers wait (four lite tasks x two trials on 2 cores: 162 s in collection order, 138 s
longest first, where the ideal split is 135 s). So the cache keeps how long each task's
trials took for each agent and model, and under ``-n`` or Ray the items start longest
first; trials never timed start before all others, as the longest may be among them.
A serial run keeps the collection order. The controller reads the history once and
hands it to its workers, so every worker, a restarted one too, orders the same way.
"""

from __future__ import annotations

import contextlib
import json
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.plugin.keys import TRIAL_KEY

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


def expected_seconds(item: pytest.Item, history: Mapping[str, float]) -> float:
    """What the history says the item's trial takes; infinite if it was never timed."""
    spec = item.stash[TRIAL_KEY]
    return history.get(trial_key(spec.task.name, spec.agent, spec.llm), float("inf"))


def order_longest_first(items: list[pytest.Item], history: Mapping[str, float]) -> None:
    """Reorder the trial items in place, longest first, among the places they hold;
    other items keep theirs, and equal trials their collection order."""
    places = [i for i, item in enumerate(items) if TRIAL_KEY in item.stash]
    trials = sorted((items[i] for i in places), key=lambda it: -expected_seconds(it, history))
    for place, item in zip(places, trials, strict=True):
        items[place] = item
