"""Content hashes of files the agent must not change."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def hash_tree(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): sha256_file(path)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def write_hashes(root: Path, out: Path) -> None:
    out.write_text(json.dumps(hash_tree(root), indent=1), encoding="utf-8")


def read_hashes(path: Path) -> dict[str, str]:
    hashes: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return hashes


def changed_files(root: Path, expected: dict[str, str]) -> list[str]:
    """Relative paths whose content differs from ``expected`` (or that are gone)."""
    changed = []
    for rel, digest in expected.items():
        path = root / rel
        if not path.is_file() or path.is_symlink() or sha256_file(path) != digest:
            changed.append(rel)
    return changed
