"""Prepared task data: made once per machine per task content, under a file lock.

Layout under the cache directory::

    data-key                              the cache's data key (core/data_key.py)
    data/<task>-<hash>-<key id>/public/   copied or hardlinked into every workspace
    data/<task>-<hash>-<key id>/private/  answers for the scorer, never in a workspace

The key id names the data key in force, so another key means another preparation.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from pytest_mlab.core.data_key import VARIABLE, data_key, key_id
from pytest_mlab.core.errors import PrepareError, TaskUnavailable
from pytest_mlab.core.fingerprint import write_hashes
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.task_code import WorkerCrash, WorkerTimeout, call_worker

PREPARE_TIMEOUT = 3600.0
_DONE = ".prepared"
HASHES = "public.sha256.json"


@dataclass(frozen=True)
class PreparedData:
    public: Path
    private: Path

    @property
    def public_hashes(self) -> Path:
        return self.public.parent / HASHES

    def discard(self) -> None:
        """Forget this preparation, so the next trial prepares afresh.

        For when a public file was changed through a hardlink in a workspace: a
        root-owned process ignores the read-only mode, and the cache is shared.
        """
        (self.public.parent / _DONE).unlink(missing_ok=True)


def missing_requirements(task: TaskSpec) -> list[str]:
    """Modules named in ``requirements`` that this interpreter cannot import."""
    return [m for m in task.manifest.requirements if importlib.util.find_spec(m) is None]


def _freeze(tree: Path) -> None:
    """Make prepared files read-only: they are hardlinked into workspaces."""
    for path in tree.rglob("*"):
        if path.is_file():
            path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)


def prepared_root(task: TaskSpec, cache_dir: Path, key: bytes | None = None) -> Path:
    """The folder of the task's prepared data in the cache (``public/``, ``private/``, and
    what the task's sandboxes mount from it), under data key ``key`` (None: the pinned
    one, else the cache's own)."""
    name = f"{task.name}-{task.content_hash()}-{key_id(data_key(cache_dir, key))}"
    return cache_dir / "data" / name


def is_prepared(task: TaskSpec, cache_dir: Path, key: bytes | None = None) -> bool:
    """Whether this machine holds the task's prepared data already."""
    return (prepared_root(task, cache_dir, key) / _DONE).exists()


def prepare_task(task: TaskSpec, cache_dir: Path, key: bytes | None = None) -> PreparedData:
    """Return the task's prepared data, running ``prepare.py`` first if this machine lacks it;
    ``key`` as for ``prepared_root``.

    Raises ``TaskUnavailable`` (skip) or ``PrepareError`` (error).
    """
    missing = missing_requirements(task)
    if missing:
        raise TaskUnavailable(
            f"{task.name} needs the Python modules {', '.join(missing)}: "
            "pip install 'pytest-mlab[tasks]'"
        )
    key = data_key(cache_dir, key)
    root = prepared_root(task, cache_dir, key)
    data = PreparedData(public=root / "public", private=root / "private")
    if (root / _DONE).exists():
        return data
    root.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root) + ".lock"):
        if (root / _DONE).exists():
            return data
        staging = root.with_name(root.name + ".staging")
        shutil.rmtree(staging, ignore_errors=True)
        (staging / "public").mkdir(parents=True)
        (staging / "private").mkdir()
        try:
            reply = call_worker(
                "prepare", task.prepare_script, staging / "public", staging / "private",
                timeout=PREPARE_TIMEOUT, cwd=staging,
                # The key goes to prepare's process alone: scorers and sandboxes get an
                # allowlisted environment, which never holds it.
                env=os.environ | {VARIABLE: key.hex()}, python=task.interpreter(),
            )
        except (WorkerTimeout, WorkerCrash) as exc:
            raise PrepareError(f"{task.name}: prepare.py failed: {exc}") from None
        if "unavailable" in reply:
            raise TaskUnavailable(f"{task.name}: {reply['unavailable']}")
        if "crash" in reply:
            raise PrepareError(
                f"{task.name}: prepare.py raised {reply['crash']}\n{reply['traceback']}"
            )
        _freeze(staging)
        write_hashes(staging / "public", staging / HASHES)
        shutil.rmtree(root, ignore_errors=True)
        staging.rename(root)
        (root / _DONE).touch()
    return data
