"""A trial's workspace: a fresh copy of ``env/`` plus the task's public data."""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mlab.core.fingerprint import changed_files, read_hashes, sha256_file
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.data import PreparedData

# Files this large are hardlinked from the cache instead of copied. They are
# read-only, and their content is verified before scoring.
HARDLINK_MIN_BYTES = 1 << 20
_READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH


@dataclass(frozen=True)
class Workspace:
    root: Path
    protected: dict[str, str] = field(default_factory=dict)
    """Relative path -> sha256 of every file the agent may not change."""

    def changed_protected_files(self) -> list[str]:
        return changed_files(self.root, self.protected)


def _place(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.stat().st_size >= HARDLINK_MIN_BYTES:
        try:
            os.link(source, target)
            return
        except OSError:  # another file system: fall back to a copy
            pass
    shutil.copyfile(source, target)
    target.chmod(_READ_ONLY)


def place_public_data(data: PreparedData, root: Path) -> dict[str, str]:
    """Put the task's public data (read-only) into ``root``; return path -> sha256."""
    public = read_hashes(data.public_hashes)
    for rel in public:
        target = root / rel
        if target.exists():
            raise FileExistsError(f"public data {rel} clashes with env/{rel}")
        _place(data.public / rel, target)
    return public


def provision_workspace(task: TaskSpec, data: PreparedData, root: Path) -> Workspace:
    """Create ``root`` holding ``env/`` (writable) and the public data (read-only)."""
    shutil.copytree(task.env_dir, root, ignore=shutil.ignore_patterns("__pycache__"))
    try:
        protected = place_public_data(data, root)
    except FileExistsError as exc:
        raise FileExistsError(f"{task.name}: {exc}") from None
    for pattern in task.manifest.read_only:
        for path in sorted(root.glob(pattern)):
            rel = path.relative_to(root).as_posix()
            if path.is_file() and rel not in protected:
                path.chmod(_READ_ONLY)
                protected[rel] = sha256_file(path)
    return Workspace(root=root, protected=protected)
