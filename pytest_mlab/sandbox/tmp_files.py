"""How many files a sandbox's /tmp holds, counted from the host while its scripts run.

/tmp in a sandbox is a tmpfs of its own (bubblewrap's, or the container's), seen from the
host at ``/proc/<pid>/root/tmp`` of any process of the sandbox; one ``fstatvfs`` there
counts its inodes, however many. A process is taken for the sandbox's when its root is not
the harness's and shows the trial's workspace at ``/workspace``; everything is read through
a descriptor of that root, so a process that ends meanwhile (and its pid, reused) cannot
lead the count elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from pytest_mlab.sandbox.bwrap import SANDBOX_WORKSPACE

_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def _every_pid() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


class TmpFiles:
    """Counts the files in /tmp of the sandbox over ``workspace``; ``pids`` gives the
    processes to look among (the trial's cgroup), every process on the machine without."""

    def __init__(self, workspace: Path, pids: Callable[[], Iterable[int]] | None = None) -> None:
        self.workspace = _identity(os.stat(workspace))
        self._pids = pids or _every_pid
        self._host_root = _identity(os.stat("/"))
        self._last: int | None = None

    def __call__(self) -> int:
        """Files, folders and links in the sandbox's /tmp now (its own root not counted);
        0 where none of its processes runs (or none can be read: a remote Docker engine's)."""
        candidates = [self._last] if self._last is not None else []
        for pid in [*candidates, *self._pids()]:
            files = self._count(pid)
            if files is not None:
                self._last = pid
                return files
        self._last = None
        return 0

    def _count(self, pid: int) -> int | None:
        try:
            # The link is followed: it is how a process's root is reached.
            root = os.open(f"/proc/{pid}/root", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            if _identity(os.fstat(root)) == self._host_root:
                return None
            shown = os.stat(SANDBOX_WORKSPACE.lstrip("/"), dir_fd=root, follow_symlinks=False)
            if _identity(shown) != self.workspace:
                return None
            tmp = os.open("tmp", _OPEN_DIR, dir_fd=root)
        except OSError:
            return None
        finally:
            os.close(root)
        try:
            return _files_in(tmp)
        except OSError:
            return None
        finally:
            os.close(tmp)


def _files_in(tmp: int) -> int:
    info = os.fstatvfs(tmp)
    # A tmpfs mounted with nr_inodes=0 keeps no count (f_files 0); neither bubblewrap's
    # (the kernel's default limit) nor the container's (``tmpfs_inodes``) is one.
    return max(info.f_files - info.f_ffree - 1, 0)
