"""Resource limits for a script: rlimits for memory, CPU time and file size; a pids
cgroup for the number of processes (a per-user process limit does not bind root)."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

GIB = 1 << 30
_CGROUP_PIDS_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


@dataclass(frozen=True)
class ResourceLimits:
    memory_bytes: int = 4 * GIB
    """Address space of each process (RLIMIT_AS)."""
    cpu_seconds: int = 3600
    file_bytes: int = 8 * GIB
    processes: int = 256


def _pids_root() -> Path | None:
    for root in _CGROUP_PIDS_ROOTS:
        controllers = root / "cgroup.subtree_control"
        if root.name == "pids" and (root / "cgroup.procs").exists():
            return root if os.access(root, os.W_OK) else None
        if controllers.exists() and "pids" in controllers.read_text().split():
            return root if os.access(root, os.W_OK) else None
    return None


@contextlib.contextmanager
def pids_cgroup(limit: int) -> Iterator[Path | None]:
    """A fresh pids cgroup capped at ``limit``, or None where none can be made."""
    root = _pids_root()
    if root is None:
        yield None
        return
    group = root / f"pytest-mlab-{uuid.uuid4().hex[:12]}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(str(limit))
    except OSError:
        with contextlib.suppress(OSError):
            group.rmdir()
        yield None
        return
    try:
        yield group
    finally:
        _empty(group)


def _empty(group: Path) -> None:
    """Kill whatever is still in the cgroup (it may have left the process group), then remove it."""
    for _ in range(50):
        with contextlib.suppress(OSError):
            pids = (group / "cgroup.procs").read_text().split()
            if not pids:
                group.rmdir()
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.02)


def _processes_of(uid: int) -> int:
    count = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError):
            for line in status.read_text().splitlines():
                if line.startswith("Uid:"):
                    count += line.split()[1] == str(uid)
                    break
    return count


def preexec(limits: ResourceLimits, cgroup: Path | None) -> Callable[[], None]:
    """What the child runs between fork and exec: join the cgroup, set the rlimits."""
    # Without a cgroup, fall back to the per-user limit, which counts every process of
    # this user (and does not bind root): allow the script ``processes`` more.
    nproc = None if cgroup is not None or os.geteuid() == 0 else (
        _processes_of(os.geteuid()) + limits.processes
    )

    def apply() -> None:
        if cgroup is not None:
            (cgroup / "cgroup.procs").write_text(str(os.getpid()))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        for kind, value in (
            (resource.RLIMIT_AS, limits.memory_bytes),
            (resource.RLIMIT_CPU, limits.cpu_seconds),
            (resource.RLIMIT_FSIZE, limits.file_bytes),
        ):
            resource.setrlimit(kind, (value, value))

    return apply
