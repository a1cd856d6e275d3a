"""Content-addressed snapshots of a workspace, one manifest per step.

Objects are stored once per content (``objects/ab/abcdef...``) and shared by every
trial of a run; a step's manifest maps each file to its hash. Files whose size,
mtime and inode are unchanged since the last snapshot are not read again, so a step
that changed nothing costs one directory walk. Protected files (the task's public
data) are never copied: they live in the cache and are provisioned again on restore.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from pytest_mlab.fingerprint import sha256_file

Manifest = dict[str, str]
_Signature = tuple[int, int, int]


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
                 protected: Mapping[str, str]) -> None:
        self.objects = objects
        self.manifests = manifests
        self.workspace = workspace
        self.protected = protected
        self._known: dict[str, tuple[_Signature, str]] = {}
        self._manifest: Manifest | None = None
        manifests.mkdir(parents=True, exist_ok=True)

    def _store(self, path: Path, digest: str) -> None:
        target = self.objects / digest[:2] / digest
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

    def take(self, step: int, changed: Sequence[str] | None = None) -> Manifest:
        """Snapshot after ``step``. ``changed``: the only files the step can have
        touched (a file action), so nothing else is looked at; None walks everything
        (a script ran)."""
        if changed is None or self._manifest is None:
            manifest: Manifest = {}
            for rel, entry in _walk(self.workspace):
                if rel not in self.protected:
                    stat = entry.stat(follow_symlinks=False)
                    manifest[rel] = self._record(rel, Path(entry.path), stat)
        else:
            manifest = dict(self._manifest)
            for rel in changed:
                path = self.workspace / rel
                if path.is_file() and not path.is_symlink() and rel not in self.protected:
                    manifest[rel] = self._record(rel, path, path.stat())
                else:
                    manifest.pop(rel, None)
        self._manifest = manifest
        (self.manifests / f"step-{step:04d}.json").write_text(json.dumps(manifest))
        return manifest


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
        shutil.copyfile(objects / digest[:2] / digest, target)
