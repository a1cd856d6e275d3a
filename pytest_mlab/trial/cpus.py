"""CPU leases: each trial holds its cores exclusively, as it holds its GPUs.

A task names its ``cpus`` in task.toml; without one a trial gets the machine's share of
one xdist worker (its usable cores divided by the worker count). Each worker first tries
the cores of its own slice, so that with the default share no two trials ever wait.

A timing may instead hold the whole machine (every core of the pool), so that no other
trial runs beside it. Leases are taken through a gate that the machine's holder keeps
closed, so that trials queue behind it instead of starving it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.core.machine import machine_id
from pytest_mlab.trial.gpu import lease

CORES_VARIABLE = "MLAB_TRIAL_CPUS"
"""The cores a cluster gave the trial, the share when its task names none."""
MACHINE_LOCK = "machine.lock"
"""The gate of a lock folder: every lease passes it; the machine's holder keeps it."""

_held = threading.local()
"""What this thread holds: ``cores`` (leases) and ``machine`` (a hold)."""


def cpu_lock_dir(cache_dir: Path) -> Path:
    """Where this machine's core leases are kept, for every session sharing the cache."""
    return cache_dir / "cpu-locks" / machine_id()


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


def _share(asked: int | None) -> tuple[tuple[int, ...], int]:
    """The pool, this worker's slice first, and how many cores a trial of it holds."""
    pool = usable_cores()
    if asked is None and os.environ.get(CORES_VARIABLE, "").isdigit():
        asked = max(1, int(os.environ[CORES_VARIABLE]))
    index, workers = worker_slot()
    start = (index * max(1, len(pool) // workers)) % len(pool)
    return pool[start:] + pool[:start], cores_wanted(asked, len(pool), workers)


@contextmanager
def _holding(kind: str) -> Iterator[None]:
    setattr(_held, kind, getattr(_held, kind, 0) + 1)
    try:
        yield
    finally:
        setattr(_held, kind, getattr(_held, kind) - 1)


@contextmanager
def lease_cores(asked: int | None, lock_dir: Path) -> Iterator[tuple[int, ...]]:
    """Hold the trial's cores until the block ends; wait while others hold them, or the
    machine."""
    if getattr(_held, "machine", 0):
        raise InfrastructureError("a core lease was asked for while this worker holds the "
                                  "whole machine, which it would wait for forever")
    mine_first, count = _share(asked)
    with (lease(tuple(str(core) for core in mine_first), count, lock_dir,
                gate=lock_dir / MACHINE_LOCK) as held, _holding("cores")):
        yield tuple(sorted(int(core) for core in held))


@contextmanager
def hold_machine(asked: int | None, lock_dir: Path) -> Iterator[tuple[int, ...]]:
    """Hold every core of the pool until the block ends, once the trials running now have
    ended, while new ones wait; yields the cores a trial asking ``asked`` would get."""
    if getattr(_held, "cores", 0) or getattr(_held, "machine", 0):
        raise InfrastructureError("the whole machine was asked for while this worker holds "
                                  "cores of its own, which it would wait for forever")
    mine_first, count = _share(asked)
    lock_dir.mkdir(parents=True, exist_ok=True)
    with (FileLock(str(lock_dir / MACHINE_LOCK)),
          lease(tuple(str(core) for core in mine_first), len(mine_first), lock_dir),
          _holding("machine")):
        yield tuple(sorted(mine_first[:count]))
