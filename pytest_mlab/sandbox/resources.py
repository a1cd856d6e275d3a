"""Resource limits of a trial's scripts: memory and processes for the whole trial (its
cgroup), CPU time and file size per process (rlimits), and a disk quota on what the
workspace may grow by."""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.sandbox.cgroups import TrialCgroup
from pytest_mlab.sandbox.disk_usage import Unmeasurable, disk_usage

GIB = 1 << 30


@dataclass(frozen=True)
class ResourceLimits:
    memory_bytes: int = 4 * GIB
    """Memory of all the trial's processes together (per process where no cgroup works)."""
    cpu_seconds: int = 3600
    """CPU time of each process."""
    file_bytes: int = 8 * GIB
    """The largest file a process may write."""
    processes: int = 256
    """Processes of the trial at once."""
    disk_bytes: int = 2 * GIB
    """How much the workspace may grow during the trial (its blocks on disk)."""


def broken_limit(limits: ResourceLimits, before: tuple[int, int],
                 after: tuple[int, int]) -> str | None:
    """The trial limit that a program broke, in words, from its cgroup's event counts
    (memory kills, refused forks) before and after."""
    if after[0] > before[0]:
        return (f"its processes and its files in /tmp together used more than the trial's "
                f"{limits.memory_bytes / GIB:g} GB of memory")
    if after[1] > before[1]:
        return f"it tried to run more than the trial's {limits.processes} processes at once"
    return None


def _processes_of(uid: int) -> int:
    count = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError):
            for line in status.read_text().splitlines():
                if line.startswith("Uid:"):
                    count += line.split()[1] == str(uid)
                    break
    return count


def preexec(limits: ResourceLimits, cgroup: TrialCgroup | None,
            cpus: tuple[int, ...] = ()) -> Callable[[], None]:
    """What the child runs between fork and exec: join the trial's cgroup, pin it to the
    trial's cores, set rlimits."""
    # Without a cgroup, fall back to the per-user limit, which counts every process of
    # this user (and does not bind root): allow the script ``processes`` more.
    nproc = None if cgroup is not None or os.geteuid() == 0 else (
        _processes_of(os.geteuid()) + limits.processes
    )
    rlimits = [(resource.RLIMIT_CPU, limits.cpu_seconds),
               (resource.RLIMIT_FSIZE, min(limits.file_bytes, limits.disk_bytes))]
    if cgroup is None:
        # Address space is a poor stand-in for memory (libraries reserve far more than
        # they use), so it is the limit only where no cgroup counts the real thing.
        rlimits.append((resource.RLIMIT_AS, limits.memory_bytes))

    def apply() -> None:
        if cgroup is not None:
            cgroup.join()
        if cpus:
            os.sched_setaffinity(0, cpus)
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        for kind, value in rlimits:
            resource.setrlimit(kind, (value, value))

    return apply


class DiskQuota:
    """Says when the workspace has grown by more than its quota since the trial began.

    Called every second while a script runs; a walk that took ``t`` seconds is not
    repeated for ``PAUSE_FACTOR * t``, so that a workspace of millions of files costs the
    harness at most a fifth of a core (and may overshoot by as much longer a pause).
    """

    PAUSE_FACTOR = 4.0

    def __init__(self, workspace: Path, limit: int) -> None:
        self.workspace = workspace
        self.limit = limit
        self.start = disk_usage(workspace)
        self._next = 0.0
        self._verdict: str | None = None

    def __call__(self) -> str | None:
        began = time.monotonic()
        if began < self._next:
            return self._verdict
        self._verdict = self._measure()
        took = time.monotonic() - began
        self._next = began + took * (1 + self.PAUSE_FACTOR)
        return self._verdict

    def _measure(self) -> str | None:
        try:
            grown = disk_usage(self.workspace) - self.start
        except Unmeasurable as exc:
            return f"{exc.strerror}, so its disk use cannot be measured; make it readable to go on"
        except OSError as exc:
            return f"the workspace's disk use could not be measured ({exc.strerror or exc})"
        if grown <= self.limit:
            return None
        return (f"the workspace grew by {grown / GIB:.2f} GB, more than the trial's disk quota "
                f"of {self.limit / GIB:g} GB; delete files to go on")
