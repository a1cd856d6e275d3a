"""The snapshot store of a run: content-addressed objects and one manifest per step.

Objects are stored once per content (``objects/ab/abcdef...``) and shared by every
trial of a run; a step's manifest maps each file to its hash. Protected files (the
task's public data) are never stored: they live in the cache and are provisioned
again on restore. Taking snapshots is ``pytest_mlab.env.snapshotter``'s job; this
module only reads and writes the store.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

Manifest = dict[str, str]


def object_path(objects: Path, digest: str) -> Path:
    """Where the content with ``digest`` is stored."""
    return objects / digest[:2] / digest


def store_object(objects: Path, source: Path, digest: str) -> None:
    """Copy ``source`` into the store under ``digest`` unless it is there already."""
    target = object_path(objects, digest)
    if target.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{digest}.{os.getpid()}.partial")
    shutil.copyfile(source, partial)
    partial.replace(target)


def walk_files(root: Path, prefix: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every regular file below ``root`` as (relative path, entry); links are not followed."""
    with os.scandir(root) as entries:
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                yield from walk_files(Path(entry.path), rel + "/")
            elif entry.is_file(follow_symlinks=False):
                yield rel, entry


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
) -> None:
    """Make the unprotected files of ``workspace`` exactly those of ``manifest``."""
    for rel, _ in list(walk_files(workspace)):
        if rel not in protected and rel not in manifest:
            (workspace / rel).unlink()
    for rel, digest in manifest.items():
        target = workspace / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        shutil.copyfile(object_path(objects, digest), target)
