"""A clean copy of a final workspace for its reproduction: everything the agent left but the
submission, with the public data placed anew from the cache.

The workspace is walked by descriptor (core/tree.py), so no depth, name or path length
stops the copy. Folders, regular files and symbolic links are copied (a link as a link,
never followed); a FIFO, socket or device is left behind, as no script needs one that the
turn's own processes made.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path

from pytest_mlab.core.file_copy import copy_file
from pytest_mlab.core.fingerprint import read_hashes
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.core.tree import Walk, open_folder
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.workspace import Workspace, place_public_data

_READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH


def _is_submission(rel: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(rel, pattern) for pattern in patterns)


def _copy_entry(rel: str, folder: int, info: os.stat_result, root: Path) -> None:
    parent, _, name = rel.rpartition("/")
    target = open_folder(root, parent, create=True)
    try:
        if stat.S_ISDIR(info.st_mode):
            os.mkdir(name, 0o755, dir_fd=target)
        elif stat.S_ISLNK(info.st_mode):
            os.symlink(os.readlink(name, dir_fd=folder), name, dir_fd=target)
        elif stat.S_ISREG(info.st_mode):
            copy_file(name, name, source_dir=folder, target_dir=target, follow=False)
    finally:
        os.close(target)


def clean_copy(task: TaskSpec, workspace: Workspace, data: PreparedData, root: Path) -> Workspace:
    """Copy ``workspace`` to ``root`` (which must not exist) without the files its task's
    ``submission`` patterns name; the public data comes from the cache and every file the
    agent could not change stays read-only, with its hash, as in the trial."""
    public = set(read_hashes(data.public_hashes))
    patterns = task.manifest.submission
    root.mkdir(parents=True)
    for entry in Walk(workspace.root, folders=True):
        rel = entry.rel.rstrip("/")
        if rel in public or _is_submission(rel, patterns):
            continue
        _copy_entry(rel, entry.folder, entry.info, root)
    protected = place_public_data(data, root)
    for rel, digest in workspace.protected.items():
        if rel not in protected and (root / rel).is_file():
            (root / rel).chmod(_READ_ONLY)
            protected[rel] = digest
    return Workspace(root=root, protected=protected)
