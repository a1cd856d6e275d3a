"""Longest trials first, when trials run side by side.

A parallel run ends when its last trial does. xdist never hands the last two items of a
worker to an idle one, so a long trial that starts late runs alone while the other
workers wait (four lite tasks x two trials on 2 cores: 165.8 s in collection order,
128.9 s longest first). So the cache keeps how long each task's trials took for each
agent and model, and under ``-n`` or Ray the items start longest first; trials never
timed start before all others, as the longest may be among them. Under xdist's
worksteal each worker starts on a fixed share of the items, so there the shares are
balanced by time (each longest first). A serial run keeps the collection order. The
controller reads the history once and hands it to its workers, so every worker, a
restarted one too, orders the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pytest

from pytest_mlab.core.trial_seconds import trial_key
from pytest_mlab.plugin.keys import TRIAL_KEY

if TYPE_CHECKING:
    pass

def expected_seconds(item: pytest.Item, history: Mapping[str, float]) -> float:
    """What the history says the item's trial takes; infinite if it was never timed."""
    spec = item.stash[TRIAL_KEY]
    return history.get(trial_key(spec.task.name, spec.agent, spec.llm), float("inf"))


def worksteal_shares(count: int, workers: int) -> list[int]:
    """How many of ``count`` items xdist's worksteal deals each worker at the start: the
    pending items divided among the workers left, in turn."""
    shares, left = [], count
    for remaining in range(workers, 0, -1):
        shares.append(left // remaining)
        left -= shares[-1]
    return shares


def _balanced(trials: list[pytest.Item], seconds: list[float], workers: int) -> list[pytest.Item]:
    """``trials`` (longest first) cut into the workers' starting shares, each trial to the
    share with room that holds the least time so far; each share stays longest first."""
    known = [s for s in seconds if s != float("inf")]
    # Never-timed trials weigh as much as the longest timed one, twice.
    weights = [s if s != float("inf") else 2 * max(known, default=1.0) for s in seconds]
    shares = worksteal_shares(len(trials), workers)
    held: list[list[pytest.Item]] = [[] for _ in shares]
    totals = [0.0] * len(shares)
    for trial, weight in zip(trials, weights, strict=True):
        room = [i for i, share in enumerate(shares) if len(held[i]) < share]
        target = min(room, key=lambda i: totals[i])
        held[target].append(trial)
        totals[target] += weight
    return [trial for share in held for trial in share]


def order_longest_first(
    items: list[pytest.Item], history: Mapping[str, float], worksteal_workers: int = 1
) -> None:
    """Reorder the trial items in place, longest first, among the places they hold;
    other items keep theirs, and equal trials their collection order. Without any
    timed trial the order stays. Under worksteal with several workers, where each
    worker first runs a fixed share of the items from the front, the shares are
    balanced by time instead, each longest first."""
    places = [i for i, item in enumerate(items) if TRIAL_KEY in item.stash]
    seconds = {i: expected_seconds(items[i], history) for i in places}
    if all(value == float("inf") for value in seconds.values()):
        return
    by_length = sorted(places, key=lambda i: -seconds[i])
    trials = [items[i] for i in by_length]
    if worksteal_workers > 1:
        trials = _balanced(trials, [seconds[i] for i in by_length], worksteal_workers)
    for place, item in zip(places, trials, strict=True):
        items[place] = item
