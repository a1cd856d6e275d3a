"""Snapshots of a trial's workspace after every step, looking only where a step wrote.

Only the paths a step changed are looked at: the file a file action names, or what the
kernel reports (``watch.py``) after code ran; where it cannot tell, every file is
stat'ed, and a file whose size, mtime and inode are unchanged is not read again.

Large files (LARGE_FILE_BYTES and up) cost a step nothing but a stat: between the
steps that matter they are known by size, mtime and inode, and their content is not
kept. It is hashed and stored at the steps that will be scored (``keep_every``) and at
the final snapshot (``full``). A trial stores at most STORE_MAX_BYTES; content beyond
that is not kept either. The manifest says which content was not kept, and why.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pytest_mlab.core.snapshots import (
    Manifest,
    is_kept,
    link_alternate,
    not_kept,
    store_object,
    walk_files,
    write_manifest,
)
from pytest_mlab.core.tree import Entry, lstat_at, open_file, open_folder, sha256_fd
from pytest_mlab.env.watch import WorkspaceWatch

if TYPE_CHECKING:
    from pytest_mlab.env.workspace import Workspace

LARGE_FILE_BYTES = 8 << 20
STORE_MAX_BYTES = 2 << 30
_Signature = tuple[int, int, int]


class Snapshotter:
    """Takes the snapshots of one trial."""

    def __init__(self, objects: Path, manifests: Path, workspace: Path,
                 protected: Mapping[str, str], *, watch: bool = True,
                 keep_every: int | None = None,
                 known: Mapping[str, tuple[_Signature, str]] | None = None,
                 store_max_bytes: int = STORE_MAX_BYTES) -> None:
        """``keep_every``: every Nth step is scored, so its snapshot keeps all content.
        ``known``: files whose content is known while their signature stays the same
        (relative path -> ((size, mtime_ns, inode), sha256)), its objects already stored."""
        self.objects = objects
        self.manifests = manifests
        self.workspace = workspace
        self.protected = protected
        self.keep_every = keep_every
        self.store_max_bytes = store_max_bytes
        self.stored_bytes = 0
        """What this trial added to the store."""
        self._known: dict[str, tuple[_Signature, str]] = dict(known or {})
        self._manifest: Manifest | None = None
        manifests.mkdir(parents=True, exist_ok=True)
        self._watch = WorkspaceWatch.start(workspace) if watch else None

    @classmethod
    def of(cls, workspace: Workspace, objects: Path, manifests: Path, *,
           keep_every: int | None = None, watch: bool = True) -> Snapshotter:
        """Snapshots of ``workspace``, told what provisioning put there, so the first
        snapshot reads none of it and finds its content where the data cache keeps it."""
        known: dict[str, tuple[_Signature, str]] = {}
        origin = workspace.provisioned
        if origin is not None:
            known = {rel: ((size, mtime, inode), digest)
                     for rel, (size, mtime, inode, digest) in origin.files.items()}
            name = hashlib.sha256(str(origin.objects).encode()).hexdigest()[:16]
            link_alternate(objects, origin.objects, name)
        return cls(objects, manifests, workspace.root, workspace.protected, watch=watch,
                   keep_every=keep_every, known=known)

    def __enter__(self) -> Snapshotter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    def _record(self, entry: Entry, keep: bool) -> str:
        stat_ = entry.info
        signature = (stat_.st_size, stat_.st_mtime_ns, stat_.st_ino)
        known = self._known.get(entry.rel)
        if known is not None and known[0] == signature and (not keep or is_kept(known[1])):
            return known[1]
        try:
            found = self._content(entry, signature, keep)
        except OSError:  # gone, or replaced by something else, since it was listed
            found = not_kept("unreadable", *signature)
        self._known[entry.rel] = (signature, found)
        return found

    def _content(self, entry: Entry, signature: _Signature, keep: bool) -> str:
        """The file's hash, its content stored; or why its content is not kept."""
        size = signature[0]
        if size >= LARGE_FILE_BYTES and not keep:
            return not_kept("large", *signature)
        if self.stored_bytes + size > self.store_max_bytes:
            return not_kept("cap", *signature)
        fd = open_file(entry.folder, entry.name)
        try:
            digest = sha256_fd(fd)
        finally:
            os.close(fd)
        self.stored_bytes += store_object(self.objects, entry.name, digest, entry.folder)
        return digest

    def take(self, step: int, changed: Sequence[str] | None = None, *,
             full: bool = False) -> Manifest:
        """Snapshot after ``step``. ``changed``: the files a file action wrote; None
        when code ran and anything may have changed. The watch, where there is one,
        adds what else changed; ``full`` looks at every file and keeps all content, as
        a scored step does."""
        keep = full or (self.keep_every is not None and step % self.keep_every == 0)
        paths: set[str] | None = set(changed) if changed is not None else None
        if self._watch is not None:
            seen = self._watch.changes()
            paths = None if seen is None else seen.union(paths or ())
        if full or paths is None or self._manifest is None:
            manifest = self._scan("", keep)
        else:
            manifest = dict(self._manifest)
            if keep:
                paths.update(rel for rel, entry in manifest.items() if not is_kept(entry))
            for rel in paths:
                self._update(manifest, rel, keep)
        self._manifest = manifest
        write_manifest(self.manifests, step, manifest)
        return manifest

    def _scan(self, folder: str, keep: bool) -> Manifest:
        manifest: Manifest = {}
        for entry in walk_files(self.workspace, folder):
            if entry.rel not in self.protected:
                manifest[entry.rel] = self._record(entry, keep)
        return manifest

    def _update(self, manifest: Manifest, rel: str, keep: bool) -> None:
        """Bring the entries of ``rel`` (a file, or a folder if it ends in '/') up to date."""
        info = lstat_at(self.workspace, rel)
        is_dir = info is not None and stat.S_ISDIR(info.st_mode)
        if rel.endswith("/") or is_dir:
            folder = rel.rstrip("/")
            manifest.pop(folder, None)
            for gone in [name for name in manifest if name.startswith(folder + "/")]:
                del manifest[gone]
            if is_dir:
                manifest.update(self._scan(folder + "/", keep))
        elif info is not None and stat.S_ISREG(info.st_mode) and rel not in self.protected:
            parent, _, name = rel.rpartition("/")
            try:
                fd = open_folder(self.workspace, parent)
            except OSError:
                manifest.pop(rel, None)
                return
            try:
                manifest[rel] = self._record(Entry(rel, fd, name, info), keep)
            finally:
                os.close(fd)
        else:
            manifest.pop(rel, None)
