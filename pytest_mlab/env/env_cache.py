"""A task's ``env/`` folder kept in the data cache, each file once by its hash.

Provisioning takes every hash from here instead of reading ``env/`` again, and copies
read-only files from here as it does the public data (a copy, never a hard link: no
trial can change what another reads); the first snapshot of a trial finds its content
here too, so a trial neither hashes nor stores it::

    data/<task>-<hash>/env-objects/ab/abcdef...   read-only, by sha256
    data/<task>-<hash>/env.sha256.json            relative path -> sha256

The data folder is named by the task's content hash, which covers ``env/``, so this
is made once per machine per task content, under the data folder's lock.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.file_copy import copy_file
from pytest_mlab.core.fingerprint import read_hashes, sha256_file
from pytest_mlab.core.snapshots import object_path, walk_files
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.data import PreparedData

ENV_OBJECTS = "env-objects"
ENV_HASHES = "env.sha256.json"
_READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH


@dataclass(frozen=True)
class CachedEnv:
    objects: Path
    hashes: dict[str, str]
    """Relative path -> sha256 of every regular file of ``env/`` (links and
    ``__pycache__`` left out)."""

    def path(self, rel: str) -> Path:
        """The read-only stored copy of ``env/<rel>``."""
        return object_path(self.objects, self.hashes[rel])


def _store(env_dir: Path, objects: Path) -> dict[str, str]:
    hashes = {}
    for entry in walk_files(env_dir):
        rel = entry.rel
        if "__pycache__" in rel.split("/"):
            continue
        digest = sha256_file(env_dir / rel)
        hashes[rel] = digest
        target = object_path(objects, digest)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f"{digest}.{os.getpid()}.partial")
            copy_file(env_dir / rel, partial)
            partial.chmod(_READ_ONLY)
            partial.replace(target)
    return hashes


def cache_env(task: TaskSpec, data: PreparedData) -> CachedEnv:
    """The task's ``env/`` as the data cache keeps it, stored there first if need be."""
    root = data.public.parent
    hashes = root / ENV_HASHES
    if not hashes.exists():
        with FileLock(str(root) + ".lock"):
            if not hashes.exists():
                stored = _store(task.env_dir, root / ENV_OBJECTS)
                write_atomic(hashes, json.dumps(stored, indent=1))
    return CachedEnv(root / ENV_OBJECTS, read_hashes(hashes))
