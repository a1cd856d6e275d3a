"""A trial's workspace: a fresh copy of ``env/`` plus the task's public data."""

from __future__ import annotations

import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mlab.core.file_copy import copy_file
from pytest_mlab.core.fingerprint import changed_files, read_hashes, sha256_file
from pytest_mlab.core.snapshots import walk_files
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.env_cache import CachedEnv, cache_env

_READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH


@dataclass(frozen=True)
class Provisioned:
    """The writable files provisioning copied from ``env/``, as it left them: enough
    for the first snapshot to know their content without reading them."""

    objects: Path
    """Where their content is stored (the data cache)."""
    files: dict[str, tuple[int, int, int, str]]
    """Relative path -> (size, mtime_ns, inode, sha256)."""


@dataclass(frozen=True)
class Workspace:
    root: Path
    protected: dict[str, str] = field(default_factory=dict)
    """Relative path -> sha256 of every file the agent may not change."""
    provisioned: Provisioned | None = None

    def changed_protected_files(self) -> list[str]:
        return changed_files(self.root, self.protected)


def _place(source: Path, target: Path) -> None:
    """A read-only copy of a cache file, never a hard link: whatever a trial does to its
    copy (as root, a read-only mode does not stop it), no other trial reads it. Where
    the file system can, the copy is a reflink, which costs no space until written;
    its content is verified before scoring."""
    target.parent.mkdir(parents=True, exist_ok=True)
    copy_file(source, target)
    target.chmod(_READ_ONLY)


def _read_only_in_env(task: TaskSpec, env: CachedEnv) -> set[str]:
    """The files of ``env/`` that ``read_only`` names (and the cache holds)."""
    found = set()
    for pattern in task.manifest.read_only:
        for path in task.env_dir.glob(pattern):
            found.add(path.relative_to(task.env_dir).as_posix())
    return found & env.hashes.keys()


def _copy_env(task: TaskSpec, env: CachedEnv, root: Path) -> dict[str, str]:
    """Copy ``env/`` to ``root``; read-only files come from the cache. Returns their
    hashes."""
    linked = _read_only_in_env(task, env)

    def skipped(folder: str, names: list[str]) -> set[str]:
        rel = Path(folder).relative_to(task.env_dir).as_posix()
        prefix = "" if rel == "." else rel + "/"
        return {n for n in names if n == "__pycache__" or prefix + n in linked}

    shutil.copytree(task.env_dir, root, ignore=skipped)
    for rel in linked:
        _place(env.path(rel), root / rel)
    return {rel: env.hashes[rel] for rel in linked}


def _provisioned(root: Path, env: CachedEnv, protected: dict[str, str]) -> Provisioned:
    files = {}
    for entry in walk_files(root):
        digest = env.hashes.get(entry.rel)
        if digest is not None and entry.rel not in protected:
            info = entry.info
            files[entry.rel] = (info.st_size, info.st_mtime_ns, info.st_ino, digest)
    return Provisioned(env.objects, files)


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
    env = cache_env(task, data)
    from_env = _copy_env(task, env, root)
    try:
        protected = place_public_data(data, root)
    except FileExistsError as exc:
        raise FileExistsError(f"{task.name}: {exc}") from None
    protected |= from_env
    for pattern in task.manifest.read_only:
        for path in sorted(root.glob(pattern)):
            rel = path.relative_to(root).as_posix()
            if path.is_file() and rel not in protected:
                path.chmod(_READ_ONLY)
                protected[rel] = sha256_file(path)
    return Workspace(root=root, protected=protected,
                     provisioned=_provisioned(root, env, protected))
