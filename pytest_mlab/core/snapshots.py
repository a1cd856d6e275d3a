"""Content-addressed snapshots of a workspace, one manifest per step.

Objects are stored once per content (``objects/ab/abcdef...``) and shared by every
trial of a run; a step's manifest maps each file to its hash. Only the paths a step
changed are looked at: the file a file action names, or what the kernel reports
(``watch.py``) after code ran; where it cannot tell, every file is stat'ed, and a file
whose size, mtime and inode are unchanged is not read again. Protected files (the
task's public data) are never copied: they live in the cache and are provisioned again
on restore.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType

from pytest_mlab.core.fingerprint import sha256_file
from pytest_mlab.env.watch import WorkspaceWatch

Manifest = dict[str, str]
_Signature = tuple[int, int, int]


def object_path(objects: Path, digest: str) -> Path:
    """Where the content with ``digest`` is stored."""
    return objects / digest[:2] / digest


def _walk(root: Path, prefix: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
    with os.scandir(root) as entries:
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                yield from _walk(Path(entry.path), rel + "/")
            elif entry.is_file(follow_symlinks=False):
                yield rel, entry


class Snapshotter:
    """Takes the snapshots of one trial."""

    def __init__(self, objects: Path, manifests: Path, workspace: Path,
                 protected: Mapping[str, str], *, watch: bool = True) -> None:
        self.objects = objects
        self.manifests = manifests
        self.workspace = workspace
        self.protected = protected
        self._known: dict[str, tuple[_Signature, str]] = {}
        self._manifest: Manifest | None = None
        manifests.mkdir(parents=True, exist_ok=True)
        self._watch = WorkspaceWatch.start(workspace) if watch else None

    def __enter__(self) -> Snapshotter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    def _store(self, path: Path, digest: str) -> None:
        target = object_path(self.objects, digest)
        if target.exists():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{digest}.{os.getpid()}.partial")
        shutil.copyfile(path, partial)
        partial.replace(target)

    def _record(self, rel: str, path: Path, stat: os.stat_result) -> str:
        signature = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        known = self._known.get(rel)
        if known is not None and known[0] == signature:
            return known[1]
        digest = sha256_file(path)
        self._store(path, digest)
        self._known[rel] = (signature, digest)
        return digest

    def take(self, step: int, changed: Sequence[str] | None = None, *,
             full: bool = False) -> Manifest:
        """Snapshot after ``step``. ``changed``: the files a file action wrote; None
        when code ran and anything may have changed. The watch, where there is one,
        adds what else changed; ``full`` looks at every file."""
        paths: set[str] | None = set(changed) if changed is not None else None
        if self._watch is not None:
            seen = self._watch.changes()
            paths = None if seen is None else seen.union(paths or ())
        if full or paths is None or self._manifest is None:
            manifest = self._scan()
        else:
            manifest = dict(self._manifest)
            for rel in paths:
                self._update(manifest, rel)
        self._manifest = manifest
        (self.manifests / f"step-{step:04d}.json").write_text(json.dumps(manifest))
        return manifest

    def _scan(self, folder: str = "") -> Manifest:
        manifest: Manifest = {}
        for rel, entry in _walk(self.workspace / folder, folder):
            if rel not in self.protected:
                manifest[rel] = self._record(rel, Path(entry.path),
                                             entry.stat(follow_symlinks=False))
        return manifest

    def _update(self, manifest: Manifest, rel: str) -> None:
        """Bring the entries of ``rel`` (a file, or a folder if it ends in '/') up to date."""
        path = self.workspace / rel
        if rel.endswith("/") or path.is_dir():
            folder = rel.rstrip("/")
            manifest.pop(folder, None)
            for gone in [name for name in manifest if name.startswith(folder + "/")]:
                del manifest[gone]
            if path.is_dir() and not path.is_symlink():
                manifest.update(self._scan(folder + "/"))
        elif path.is_file() and not path.is_symlink() and rel not in self.protected:
            manifest[rel] = self._record(rel, path, path.stat())
        else:
            manifest.pop(rel, None)


def manifest_steps(manifests: Path) -> list[int]:
    return sorted(int(p.stem.removeprefix("step-")) for p in manifests.glob("step-*.json"))


def read_manifest(manifests: Path, step: int) -> Manifest:
    loaded: Manifest = json.loads((manifests / f"step-{step:04d}.json").read_text())
    return loaded


def restore(
    objects: Path, manifest: Manifest, workspace: Path, protected: Mapping[str, str]
) -> None:
    """Make the unprotected files of ``workspace`` exactly those of ``manifest``."""
    for rel, _ in list(_walk(workspace)):
        if rel not in protected and rel not in manifest:
            (workspace / rel).unlink()
    for rel, digest in manifest.items():
        target = workspace / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        shutil.copyfile(object_path(objects, digest), target)
