"""GPU leases: exclusive across processes on one machine, through file locks."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path

from filelock import FileLock, Timeout

from pytest_mlab.core.machine import machine_id

POLL_SECONDS = 0.2


class NoGPU(Exception):
    """The machine has fewer GPUs than the task needs, so waiting cannot help."""


def gpu_lock_dir(cache_dir: Path) -> Path:
    """Where this machine's GPU leases are kept, for every session sharing the cache."""
    return cache_dir / "gpu-locks" / machine_id()


@contextmanager
def lease(
    pool: tuple[str, ...], count: int, lock_dir: Path, gate: Path | None = None
) -> Iterator[tuple[str, ...]]:
    """Hold ``count`` GPUs of ``pool`` until the block ends; wait while all are taken.
    Each try passes through the lock ``gate``, when given, and waits while it is held."""
    if count == 0:
        yield ()
        return
    if len(pool) < count:
        have = f"{len(pool)} GPU{'s' if len(pool) != 1 else ''}" if pool else "no GPU"
        raise NoGPU(f"needs {count} GPU{'s' if count != 1 else ''}, this machine has {have} "
                    "(set --mlab-gpus or CUDA_VISIBLE_DEVICES)")
    lock_dir.mkdir(parents=True, exist_ok=True)
    while True:
        with ExitStack() as held:
            with FileLock(str(gate)) if gate is not None else nullcontext():
                taken = _take(pool, count, lock_dir, held)
            if taken:
                yield taken
                return
        time.sleep(POLL_SECONDS)


def _take(
    pool: tuple[str, ...], count: int, lock_dir: Path, held: ExitStack
) -> tuple[str, ...]:
    """``count`` of the free ones in ``pool``, each released when ``held`` closes; none
    when fewer are free."""
    taken: list[str] = []
    for gpu in pool:
        lock = FileLock(str(lock_dir / f"gpu-{gpu}.lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            continue
        held.callback(lock.release)
        taken.append(gpu)
        if len(taken) == count:
            return tuple(taken)
    return ()
