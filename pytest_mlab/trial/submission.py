"""What is scored: the submission's files, copied out of the workspace into a fresh folder.

The scorer never reads the workspace. Only regular files that the task's ``submission``
patterns name are copied, without following links and up to the task's size; a
symbolic link, a hard link shared with another file, a FIFO, a device or a socket among
them makes the submission invalid, with a sentence that names it; so does a name that is
not UTF-8, holds a control character or makes a path too long for a scorer to open. The
workspace is walked by descriptor, so no depth or path length stops the walk itself.
Nothing runs in the workspace any more when this is called (the trial's processes are
dead), so what is checked is what is copied.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from pytest_mlab.core.file_copy import copy_open
from pytest_mlab.core.fingerprint import read_hashes
from pytest_mlab.core.plain_text import has_unprintable, is_utf8, shown_name
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.core.tree import Walk, open_file, open_folder
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.workspace import Workspace, place_public_data

MB = 1 << 20
MAX_PATH_BYTES = 3072
"""The longest path a submission's file may have: its copy, in a folder of its own, is
still well short of PATH_MAX, so a scorer can open it by name."""
_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
          stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}
_WILDCARDS = frozenset("*?[")


class InvalidCopy(Exception):
    """The submission cannot be scored; the message is the sentence for the agent."""


def _could_hold(folder: str, patterns: Sequence[str]) -> bool:
    """Whether a pattern may name a file below ``folder``."""
    return any(_WILDCARDS & set(p) or p.startswith(folder) for p in patterns)


def _chosen(
    task: TaskSpec, workspace: Workspace, public: set[str]
) -> list[tuple[str, os.stat_result]]:
    """The entries the patterns name; folders are walked (their files are matched one by
    one), and the public data is left out: the scorer gets the cache's own copy."""
    patterns = task.manifest.submission
    walk = Walk(workspace.root)
    chosen = [
        (entry.rel, entry.info) for entry in walk
        if entry.rel not in public and any(fnmatch.fnmatch(entry.rel, p) for p in patterns)
    ]
    unread = [folder for folder in walk.skipped if _could_hold(folder, patterns)]
    if unread:
        raise InvalidCopy(f"the folder {shown_name(unread[0])} could not be read, and it may "
                          "hold part of the submission")
    return chosen


def _check_name(rel: str) -> None:
    """Refuse a name a scorer could not open, print or write to a report as it is."""
    if not is_utf8(rel):
        raise InvalidCopy(f"a file name is not valid UTF-8: '{shown_name(rel)}'; name the "
                          "submission's files in UTF-8")
    if has_unprintable(rel):
        raise InvalidCopy(f"a file name holds a control character: '{shown_name(rel)}'; name "
                          "the submission's files in printable characters")
    size = len(rel.encode())
    if size > MAX_PATH_BYTES:
        raise InvalidCopy(f"the path '{shown_name(rel, 80)}' is {size:,} bytes long, more than "
                          f"the {MAX_PATH_BYTES:,} a submission's file may have")


def _check(rel: str, info: os.stat_result) -> None:
    _check_name(rel)
    kind = _KINDS.get(stat.S_IFMT(info.st_mode))
    if kind is not None:
        raise InvalidCopy(f"{rel} is {kind}, not a regular file; only regular files are scored")
    if not stat.S_ISREG(info.st_mode):
        raise InvalidCopy(f"{rel} is not a regular file; only regular files are scored")
    if info.st_nlink > 1:
        raise InvalidCopy(f"{rel} is a hard link shared with another file; write a file of "
                          "its own")


def _copy(root: Path, rel: str, folder: Path, size: int) -> None:
    """Copy without following a link that appeared since the check, at any folder."""
    parent, _, name = rel.rpartition("/")
    source_dir = open_folder(root, parent)
    try:
        try:
            reader = open_file(source_dir, name)
        except OSError as exc:
            if exc.strerror == "not a regular file":
                raise InvalidCopy(f"{rel} is not a regular file; only regular files are "
                                  "scored") from None
            raise
        try:
            (folder / parent).mkdir(parents=True, exist_ok=True)
            writer = os.open(folder / rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                             0o644)
            try:
                copy_open(reader, writer, Path(name), folder / rel)
                if os.fstat(writer).st_size != size:
                    raise InvalidCopy(f"{rel} changed while it was copied")
            finally:
                os.close(writer)
        finally:
            os.close(reader)
    finally:
        os.close(source_dir)


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
            _copy(workspace.root, rel, folder, info.st_size)
        except OSError as exc:
            raise InvalidCopy(f"{rel} could not be read: {exc.strerror}") from None
    place_public_data(data, folder)
    return [rel for rel, _ in chosen]
