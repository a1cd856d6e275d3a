"""What is scored: the submission's files, copied out of the workspace into a fresh folder.

The scorer never reads the workspace. Only regular files that the task's ``submission``
patterns name are copied, without following links and up to the task's size; a
symbolic link, a hard link shared with another file, a FIFO, a device or a socket among
them makes the submission invalid, with a sentence that names it. Nothing runs in the
workspace any more when this is called (the trial's processes are dead), so what is
checked is what is copied.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
from pathlib import Path

from pytest_mlab.core.fingerprint import read_hashes
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.workspace import Workspace, place_public_data

MB = 1 << 20
_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
          stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


class InvalidCopy(Exception):
    """The submission cannot be scored; the message is the sentence for the agent."""


def _entries(root: Path, prefix: str = "") -> list[tuple[str, os.stat_result]]:
    """Every entry below ``root`` (folders walked, links not followed), by relative path."""
    found = []
    with os.scandir(root) as entries:
        for entry in entries:
            rel, info = prefix + entry.name, entry.stat(follow_symlinks=False)
            found.append((rel, info))
            if stat.S_ISDIR(info.st_mode):
                found += _entries(Path(entry.path), rel + "/")
    return found


def _chosen(
    task: TaskSpec, workspace: Workspace, public: set[str]
) -> list[tuple[str, os.stat_result]]:
    """The entries the patterns name; folders are walked (their files are matched one by
    one), and the public data is left out: the scorer gets the cache's own copy."""
    patterns = task.manifest.submission
    return [
        (rel, info) for rel, info in _entries(workspace.root)
        if rel not in public and not stat.S_ISDIR(info.st_mode)
        and any(fnmatch.fnmatch(rel, pattern) for pattern in patterns)
    ]


def _check(rel: str, info: os.stat_result) -> None:
    kind = _KINDS.get(stat.S_IFMT(info.st_mode))
    if kind is not None:
        raise InvalidCopy(f"{rel} is {kind}, not a regular file; only regular files are scored")
    if info.st_nlink > 1:
        raise InvalidCopy(f"{rel} is a hard link shared with another file; write a file of "
                          "its own")


def _copy(source: Path, target: Path, size: int) -> None:
    """Copy without following a link that appeared since the check."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as reader, target.open("wb") as writer:
        if not stat.S_ISREG(os.fstat(reader.fileno()).st_mode):
            raise InvalidCopy(f"{source.name} is not a regular file; only regular files are scored")
        shutil.copyfileobj(reader, writer, length=1 << 20)
        if writer.tell() != size:
            raise InvalidCopy(f"{source.name} changed while it was copied")


def copy_submission(
    task: TaskSpec, workspace: Workspace, data: PreparedData, folder: Path
) -> list[str]:
    """Fill ``folder`` with the submission and the task's public data (read-only, as in
    the workspace); return the submission's files. Raises ``InvalidCopy``."""
    chosen = _chosen(task, workspace, set(read_hashes(data.public_hashes)))
    for rel, info in chosen:
        _check(rel, info)
    total, limit = sum(info.st_size for _, info in chosen), task.manifest.submission_mb
    if total > limit * MB:
        raise InvalidCopy(f"the submission's files hold {total / MB:.1f} MB, more than the "
                          f"{limit:g} MB this task scores")
    folder.mkdir(parents=True)
    for rel, info in chosen:
        try:
            _copy(workspace.root / rel, folder / rel, info.st_size)
        except OSError as exc:
            raise InvalidCopy(f"{rel} could not be read: {exc.strerror}") from None
    place_public_data(data, folder)
    return [rel for rel, _ in chosen]
