"""CPU leases: each trial holds its cores exclusively, as it holds its GPUs.

A task names its ``cpus`` in task.toml; without one a trial gets the machine's share of
one xdist worker (its usable cores divided by the worker count). Each worker first tries
the cores of its own slice, so that with the default share no two trials ever wait.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pytest_mlab.trial.gpu import lease

CORES_VARIABLE = "MLAB_TRIAL_CPUS"
"""The cores a cluster gave the trial, the share when its task names none."""


def usable_cores() -> tuple[int, ...]:
    """The cores this process may run on (its affinity, which a cpuset narrows)."""
    return tuple(sorted(os.sched_getaffinity(0)))


def worker_slot(environ: dict[str, str] | None = None) -> tuple[int, int]:
    """This process's xdist worker index and the worker count; (0, 1) outside xdist."""
    env = os.environ if environ is None else environ
    name, count = env.get("PYTEST_XDIST_WORKER", ""), env.get("PYTEST_XDIST_WORKER_COUNT", "")
    if name.startswith("gw") and name[2:].isdigit() and count.isdigit() and int(count) > 0:
        return int(name[2:]) % int(count), int(count)
    return 0, 1


def cores_wanted(asked: int | None, pool: int, workers: int) -> int:
    """How many cores a trial holds: what its task asks (at most the pool), else the
    worker's share, at least one."""
    if asked is not None:
        return min(asked, pool)
    return max(1, pool // workers)


@contextmanager
def lease_cores(asked: int | None, lock_dir: Path) -> Iterator[tuple[int, ...]]:
    """Hold the trial's cores until the block ends; wait while others hold them."""
    pool = usable_cores()
    if asked is None and os.environ.get(CORES_VARIABLE, "").isdigit():
        asked = max(1, int(os.environ[CORES_VARIABLE]))
    index, workers = worker_slot()
    count = cores_wanted(asked, len(pool), workers)
    start = (index * max(1, len(pool) // workers)) % len(pool)
    mine_first = pool[start:] + pool[:start]
    with lease(tuple(str(core) for core in mine_first), count, lock_dir) as held:
        yield tuple(sorted(int(core) for core in held))
