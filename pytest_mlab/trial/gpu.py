"""GPU leases: exclusive across processes on one machine, through file locks."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

POLL_SECONDS = 0.2


class NoGPU(Exception):
    """The machine has fewer GPUs than the task needs, so waiting cannot help."""


@contextmanager
def lease(pool: tuple[str, ...], count: int, lock_dir: Path) -> Iterator[tuple[str, ...]]:
    """Hold ``count`` GPUs of ``pool`` until the block ends; wait while all are taken."""
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
                    yield tuple(taken)
                    return
        time.sleep(POLL_SECONDS)
