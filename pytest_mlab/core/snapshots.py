"""The snapshot store of a run: content-addressed objects and one manifest per step.

Objects are stored once per content (``objects/ab/abcdef...``) and shared by every
trial of a run; a step's manifest maps each file to its hash. Protected files (the
task's public data) are never stored: they live in the cache and are provisioned
again on restore. Content that is already stored elsewhere on the machine (a task's
``env/`` files in the data cache) is found through ``objects/alternates/``, links to
those other stores, rather than copied.

Some content is not kept: large files between the steps that matter (they are known
by size, mtime and inode), and anything beyond a trial's cap on stored bytes. Their
manifest entry says so (``not_kept``) in place of a hash; every reader must expect it.
Taking snapshots is ``pytest_mlab.env.snapshotter``'s job; this module only reads and
writes the store.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from pytest_mlab.core.file_copy import copy_file
from pytest_mlab.core.plain_text import shown_name
from pytest_mlab.core.tree import Entry, Walk, open_folder

Manifest = dict[str, str]
"""Relative path -> sha256 of the content, or a ``not_kept`` entry."""
_NOT_KEPT = "not-kept:"
_SHA256 = re.compile("[0-9a-f]{64}")
ALTERNATES = "alternates"
WHY_NOT_KEPT = {
    "large": "a large file, kept only at the final and the scored steps",
    "cap": "the trial's snapshots had reached their cap on stored bytes",
    "unreadable": "it could not be read",
}


def not_kept(why: str, size: int, mtime_ns: int, inode: int) -> str:
    """The manifest entry of a file whose content was not stored (``why``: a key of
    WHY_NOT_KEPT); it changes whenever the file does, as a hash would."""
    return f"{_NOT_KEPT}{why}:{size}:{mtime_ns}:{inode}"


def is_kept(entry: str) -> bool:
    return not entry.startswith(_NOT_KEPT)


def not_kept_note(entry: str) -> str:
    """Why the content of ``entry`` is missing, in words."""
    why, _, rest = entry.removeprefix(_NOT_KEPT).partition(":")
    size = rest.partition(":")[0]
    amount = f"{int(size):,} bytes; " if size.isdigit() else ""
    return f"content not kept in the snapshots ({amount}{WHY_NOT_KEPT.get(why, why)})"


def object_path(objects: Path, digest: str) -> Path:
    """Where the content with ``digest`` is stored in this store itself."""
    return objects / digest[:2] / digest


def find_object(objects: Path, digest: str) -> Path | None:
    """The stored content with ``digest``, here or in a linked store; None if absent, or if
    ``digest`` is no sha256 (a forged manifest's ``../../etc/passwd`` names no object)."""
    if not is_kept(digest) or _SHA256.fullmatch(digest) is None:
        return None
    candidates = [objects, *sorted((objects / ALTERNATES).glob("*"))]
    for store in candidates:
        path = object_path(store, digest)
        if path.is_file():
            return path
    return None


def link_alternate(objects: Path, other: Path, name: str) -> None:
    """Let ``objects`` find content stored in ``other`` (under the link ``name``)."""
    link = objects / ALTERNATES / name
    if link.is_symlink() or link.exists():
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # another trial of the run was first
        link.symlink_to(other.resolve(), target_is_directory=True)


def store_object(objects: Path, source: Path | str, digest: str,
                 folder: int | None = None) -> int:
    """Copy ``source`` (a name in the open ``folder``, if given; a link is not followed)
    into the store under ``digest`` unless it is there already; returns the bytes
    written."""
    if find_object(objects, digest) is not None:
        return 0
    target = object_path(objects, digest)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{digest}.{os.getpid()}.partial")
    try:
        copy_file(source, partial, source_dir=folder, follow=False)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(target)
    return target.stat().st_size


def walk_files(root: Path, folder: str = "") -> Iterator[Entry]:
    """Every regular file below ``root`` (or below its ``folder``), whatever the depth,
    path length or names; links are not followed, and what cannot be entered is left out."""
    return (entry for entry in Walk(root, folder) if entry.is_file)


def manifest_path(manifests: Path, step: int) -> Path:
    return manifests / f"step-{step:04d}.json"


def write_manifest(manifests: Path, step: int, manifest: Manifest) -> None:
    manifest_path(manifests, step).write_text(json.dumps(manifest))


def manifest_steps(manifests: Path) -> list[int]:
    """The steps that have a manifest, in order."""
    return sorted(int(p.stem.removeprefix("step-")) for p in manifests.glob("step-*.json"))


def read_manifest(manifests: Path, step: int) -> Manifest:
    loaded: Manifest = json.loads(manifest_path(manifests, step).read_text())
    return loaded


def restore(
    objects: Path, manifest: Manifest, workspace: Path, protected: Mapping[str, str]
) -> dict[str, str]:
    """Make the unprotected files of ``workspace`` those of ``manifest``, as far as the
    store kept them. Returns each file it could not restore, with why; such a file is
    left as the workspace held it (as provisioned, or absent)."""
    for entry in walk_files(workspace):
        if entry.rel not in protected and entry.rel not in manifest:
            os.unlink(entry.name, dir_fd=entry.folder)
    missing = {}
    for rel, digest in manifest.items():
        source = find_object(objects, digest)
        if source is None:
            missing[rel] = (not_kept_note(digest) if not is_kept(digest)
                            else "content missing from the snapshot store")
            continue
        try:
            _restore_file(source, workspace, rel)
        except OSError as exc:
            missing[rel] = f"could not be written back ({exc.strerror})"
    return missing


def _restore_file(source: Path, workspace: Path, rel: str) -> None:
    folder, _, name = rel.rpartition("/")
    fd = open_folder(workspace, folder, create=True)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=fd)
        copy_file(source, name, target_dir=fd)
    finally:
        os.close(fd)


def describe_missing(missing: Mapping[str, str], limit: int = 5) -> str:
    """The files a restore left out, with why, for a sentence."""
    named = "; ".join(f"{shown_name(rel)}: {why}"
                      for rel, why in list(missing.items())[:limit])
    more = f"; and {len(missing) - limit} more" if len(missing) > limit else ""
    return named + more
