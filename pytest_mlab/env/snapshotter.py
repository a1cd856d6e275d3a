"""Snapshots of a trial's workspace after every step, looking only where a step wrote.

Only the paths a step changed are looked at: the file a file action names, or what the
kernel reports (``watch.py``) after code ran; where it cannot tell, every file is
stat'ed, and a file whose size, mtime and inode are unchanged is not read again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from pytest_mlab.core.fingerprint import sha256_file
from pytest_mlab.core.snapshots import Manifest, store_object, walk_files, write_manifest
from pytest_mlab.env.watch import WorkspaceWatch

_Signature = tuple[int, int, int]


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

    def _record(self, rel: str, path: Path, stat: os.stat_result) -> str:
        signature = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        known = self._known.get(rel)
        if known is not None and known[0] == signature:
            return known[1]
        digest = sha256_file(path)
        store_object(self.objects, path, digest)
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
        write_manifest(self.manifests, step, manifest)
        return manifest

    def _scan(self, folder: str = "") -> Manifest:
        manifest: Manifest = {}
        for rel, entry in walk_files(self.workspace / folder, folder):
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
