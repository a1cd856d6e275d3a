"""Resource limits of a trial's scripts: memory and processes for the whole trial (its
cgroup), CPU time and file size per process (rlimits), a disk quota on what the
workspace may grow by, and a limit on the files the workspace and /tmp may gain."""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.sandbox.cgroups import TrialCgroup
from pytest_mlab.sandbox.disk_usage import Unmeasurable, Usage, usage

GIB = 1 << 30
FILES = 100_000
"""The files a trial may add unless its task says otherwise."""
SPARE_TMP_INODES = 1024
"""Inodes a container's /tmp has beyond the trial's file limit: room for mount points, and
for a count past the limit that the check can see once the kernel has stopped a flood."""


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
    files: int = FILES
    """How many files (inodes: folders and links too) the workspace and /tmp together may
    gain during the trial."""


def tmpfs_inodes(limits: ResourceLimits) -> int:
    """The inodes a container's /tmp is made with (a hard stop behind the check)."""
    return limits.files + SPARE_TMP_INODES


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

    # A harness run as root may belong to groups (root's own) that no script may have.
    drop_groups = os.geteuid() == 0

    def apply() -> None:
        if drop_groups:
            os.setgroups([])
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
    """Says when the workspace has grown by more than its quota since the trial began, or
    the workspace and /tmp together have gained more files (inodes) than its limit.

    Called every second while a script runs. ``tmp`` counts /tmp's files (one statvfs)
    at every call. The workspace is walked; a walk that took ``t`` seconds is not repeated
    for ``PAUSE_FACTOR * t``, so that a workspace of millions of files costs the harness
    at most a fifth of a core, unless its file system's own counts (one statvfs) have
    grown since by more than the limits left: then it is repeated after ``t`` (half a
    core at most, while the file system grows that fast). A workspace found over its
    quota is walked again before that is said: the script that deletes files to get
    under it must not be stopped on an old count.
    """

    PAUSE_FACTOR = 4.0

    def __init__(self, workspace: Path, limit: int, files: int = FILES,
                 tmp: Callable[[], int] | None = None) -> None:
        self.workspace = workspace
        self.limit = limit
        self.files = files
        self._tmp = tmp
        self.start = usage(workspace)
        self._grown = Usage(0, 0)
        self._used = _file_system_used(workspace)
        self._next = 0.0
        self._soonest = 0.0
        self._unmeasured: str | None = None

    def __call__(self) -> str | None:
        began = time.monotonic()
        tmp = self._tmp() if self._tmp is not None else 0
        due = began >= self._next or (began >= self._soonest and self._may_have_passed(tmp))
        if due or self._over_workspace_limits():
            self._measure()
            took = time.monotonic() - began
            self._soonest = began + 2 * took
            self._next = began + took * (1 + self.PAUSE_FACTOR)
        return self._verdict(tmp)

    def _over_workspace_limits(self) -> bool:
        """Whether the last walk found the workspace over a limit on its own (or could
        not measure it)."""
        return (self._unmeasured is not None or self._grown.bytes > self.limit
                or self._grown.files > self.files)

    def _may_have_passed(self, tmp: int) -> bool:
        """Whether the file system gained more since the last walk than the limits left
        (others' files count too: a reason to walk, never a verdict)."""
        used = _file_system_used(self.workspace)
        if used is None or self._used is None:
            return False
        return (used[0] - self._used[0] > self.limit - self._grown.bytes
                or used[1] - self._used[1] > self.files - self._grown.files - tmp)

    def _measure(self) -> None:
        used = _file_system_used(self.workspace)
        try:
            now = usage(self.workspace)
        except Unmeasurable as exc:
            self._unmeasured = (f"{exc.strerror}, so its disk use cannot be measured; make it "
                                "readable to go on")
            return
        except OSError as exc:
            self._unmeasured = (f"the workspace's disk use could not be measured "
                                f"({exc.strerror or exc})")
            return
        self._unmeasured = None
        self._grown = Usage(now.bytes - self.start.bytes, now.files - self.start.files)
        self._used = used

    def _verdict(self, tmp: int) -> str | None:
        if self._unmeasured is not None:
            return self._unmeasured
        if self._grown.bytes > self.limit:
            return (f"the workspace grew by {self._grown.bytes / GIB:.2f} GB, more than the "
                    f"trial's disk quota of {self.limit / GIB:g} GB; delete files to go on")
        files = self._grown.files + tmp
        if files > self.files:
            return (f"the workspace and /tmp gained {files:,} files, more than the trial's "
                    f"limit of {self.files:,}; delete files to go on")
        return None


def _file_system_used(path: Path) -> tuple[int, int] | None:
    """The bytes and inodes in use on the file system holding ``path`` (inodes 0 where it
    keeps no count), or None where it cannot say."""
    try:
        info = os.statvfs(path)
    except OSError:
        return None
    return (info.f_blocks - info.f_bfree) * info.f_frsize, info.f_files - info.f_ffree
