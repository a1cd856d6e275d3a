"""A trial's scratch folder on a node (its run folder until the files go back).

A Ray worker killed mid-trial (by the OOM killer, Ray's memory monitor, a forced cancel)
never removes its folder, and with snapshots and a kept workspace it can weigh gigabytes.
So each folder has a lock that the trial holds, its session included (the lock's file
descriptor is passed on to it), and every trial that starts on the node first removes
the folders no one holds any more.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.core.errors import InfrastructureError

_LOCK = ".lock"


@dataclass(frozen=True)
class Scratch:
    folder: Path
    lock_fd: int
    """Held for as long as the folder is in use: pass it on to the trial's session."""


def scratch_root() -> Path:
    """This user's scratch folders on this node, under the temporary folder."""
    root = Path(tempfile.gettempdir()) / f"mlab-remote-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        root.mkdir(mode=0o700)
    info = os.lstat(root)
    # A shared /tmp: a folder someone else made (or a link) would take the trials' files.
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise InfrastructureError(f"{root} is not a folder of this user's: remove it")
    return root


def remove_abandoned(root: Path) -> list[str]:
    """Remove every scratch folder whose lock no process holds; returns their names."""
    removed = []
    for lock in root.glob(f"*{_LOCK}"):
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue  # removed by another trial's sweep meanwhile
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        name = lock.name.removesuffix(_LOCK)
        shutil.rmtree(root / name, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()
        os.close(fd)
        removed.append(name)
    return removed


@contextlib.contextmanager
def scratch_folder() -> Iterator[Scratch]:
    """A fresh scratch folder, locked while the block runs, removed after it; folders
    that killed trials left are removed first."""
    root = scratch_root()
    remove_abandoned(root)
    name = uuid.uuid4().hex[:16]
    # Locked before it gets its name: a sweep never sees an unlocked lock of a live trial.
    pending = root / f".{name}.new"
    fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.rename(pending, root / f"{name}{_LOCK}")
    folder = root / name
    folder.mkdir(mode=0o700)
    try:
        yield Scratch(folder, fd)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            (root / f"{name}{_LOCK}").unlink()
        os.close(fd)
