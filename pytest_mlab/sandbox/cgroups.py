"""One control group per trial: every process of its scripts, together held to the trial's
memory and process limits, and killed together when a script ends.

A process group or session is no boundary (a daemon leaves it with setsid); a cgroup is,
since a process can leave it only by being moved by root. Works with cgroup v2 (the
unified hierarchy, where memory and pids are delegated to this process's group) and v1
(separate memory and pids hierarchies); where neither can be written, the sandbox falls
back to per-process rlimits and says so in its isolation.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
_KILL_ROUNDS = 100


def _own_path(controller: str) -> str:
    """This process's group in ``controller``'s hierarchy ('' for v2)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if controller in names.split(","):
                return path
    return "/"


def _v2_parent() -> Path | None:
    """Where a v2 child group with memory and pids can be made, if anywhere."""
    lines = read_or_empty("/proc/self/cgroup").splitlines()
    own = next((line.split(":", 2)[2] for line in lines if line.startswith("0::")), None)
    for parent in (CGROUP_ROOT / (own or "/").lstrip("/"), CGROUP_ROOT):
        enabled = read_or_empty(parent / "cgroup.subtree_control").split()
        if {"memory", "pids"} <= set(enabled) and os.access(parent, os.W_OK):
            return parent
    return None


def event_count(text: str, key: str) -> int:
    """The count of ``key`` in a cgroup's events file ("oom_kill 2", "max 5")."""
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def read_or_empty(path: Path | str) -> str:
    """The text of ``path``; empty where it cannot be read (a controller not there)."""
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _v1_cpuset(name: str, cpus: tuple[int, ...]) -> Path | None:
    """A v1 cpuset group beside this process's, held to ``cpus``, or None where none can
    be made (a cpuset needs its memory nodes set before any process may join)."""
    parent = CGROUP_ROOT / "cpuset" / _own_path("cpuset").lstrip("/")
    group = parent / name
    try:
        group.mkdir()
    except OSError:
        return None
    try:
        mems = read_or_empty(parent / "cpuset.effective_mems").strip() or read_or_empty(
            parent / "cpuset.mems").strip()
        (group / "cpuset.mems").write_text(mems)
        (group / "cpuset.cpus").write_text(",".join(map(str, cpus)))
    except OSError:
        with contextlib.suppress(OSError):
            group.rmdir()
        return None
    return group


@dataclass
class TrialCgroup:
    """The groups (one in v2; memory and pids in v1) that hold a trial's processes."""

    groups: tuple[Path, ...]
    v2: bool
    memory_bytes: int

    @classmethod
    def create(cls, memory_bytes: int, processes: int,
               cpus: tuple[int, ...] = ()) -> TrialCgroup | None:
        """A fresh group with both limits set, or None where none can be made here; held
        to ``cpus`` by a cpuset too where the controller can be written (v1, or v2 with
        it delegated): an affinity alone a script can widen again."""
        name = f"pytest-mlab-{uuid.uuid4().hex[:12]}"
        parent = _v2_parent()
        if parent is not None:
            made = cls._make((parent / name,), [("memory.max", memory_bytes),
                                                ("memory.swap.max", 0),
                                                ("pids.max", processes)])
            if made and cpus and (made[0] / "cpuset.cpus").exists():
                with contextlib.suppress(OSError):
                    (made[0] / "cpuset.cpus").write_text(",".join(map(str, cpus)))
            return cls(made, True, memory_bytes) if made else None
        memory = CGROUP_ROOT / "memory" / _own_path("memory").lstrip("/") / name
        pids = CGROUP_ROOT / "pids" / _own_path("pids").lstrip("/") / name
        made = cls._make((memory, pids), [("memory.limit_in_bytes", memory_bytes),
                                          ("memory.memsw.limit_in_bytes", memory_bytes),
                                          ("pids.max", processes)])
        if not made:
            return None
        cpuset = _v1_cpuset(name, cpus) if cpus else None
        # The pids group stays last: the processes are listed, and forks counted, there.
        return cls((memory, cpuset, pids) if cpuset else made, False, memory_bytes)

    @staticmethod
    def _make(groups: tuple[Path, ...], settings: list[tuple[str, int]]) -> tuple[Path, ...]:
        made: list[Path] = []
        try:
            for group in groups:
                group.mkdir()
                made.append(group)
            for key, value in settings:
                for group in groups:
                    if (group / key).exists():
                        (group / key).write_text(str(value))
        except OSError:
            for group in made:
                with contextlib.suppress(OSError):
                    group.rmdir()
            return ()
        return groups

    def join(self) -> None:
        """Move the calling process into the groups (run between fork and exec)."""
        pid = str(os.getpid())
        for group in self.groups:
            (group / "cgroup.procs").write_text(pid)

    def pids(self) -> list[int]:
        return [int(pid) for pid in read_or_empty(self.groups[-1] / "cgroup.procs").split()]

    def kill_all(self) -> None:
        """SIGKILL every process in the groups until none is left."""
        for _ in range(_KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def events(self) -> tuple[int, int]:
        """How many processes the kernel has killed for the memory limit so far, and how
        many forks it has refused for the process limit."""
        memory = self.groups[0] / ("memory.events" if self.v2 else "memory.oom_control")
        return (event_count(read_or_empty(memory), "oom_kill"),
                event_count(read_or_empty(self.groups[-1] / "pids.events"), "max"))

    def close(self) -> None:
        self.kill_all()
        for group in self.groups:
            with contextlib.suppress(OSError):
                group.rmdir()
