"""What a step changed in the workspace: unified diffs between two snapshot manifests."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from pytest_mlab.core.plain_text import printable
from pytest_mlab.core.snapshots import Manifest, find_object, is_kept, not_kept_note

MAX_FILE_BYTES = 256_000
MAX_DIFF_LINES = 120
MAX_FILES = 20


class FileChange(BaseModel):
    path: str
    kind: Literal["added", "removed", "modified"]
    diff: str = ""
    note: str = ""
    """Why the diff is missing or cut short; empty when it is whole."""


def _text(objects: Path, digest: str | None) -> tuple[list[str] | None, str]:
    """The file's lines, or None and the reason they are not shown."""
    if digest is None:
        return [], ""
    if not is_kept(digest):
        return None, f"{not_kept_note(digest)}: not shown"
    path = find_object(objects, digest)
    try:
        if path is None:
            raise FileNotFoundError(digest)
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, f"large file ({size:,} bytes): not shown"
        data = path.read_bytes()
    except OSError:
        return None, "content not kept in the snapshots"
    if b"\0" in data:
        return None, f"binary file ({len(data):,} bytes): not shown"
    try:
        return data.decode("utf-8").splitlines(keepends=True), ""
    except UnicodeDecodeError:
        return None, f"binary file ({len(data):,} bytes): not shown"


def _change(objects: Path, path: str, before: str | None, after: str | None) -> FileChange:
    kind: Literal["added", "removed", "modified"] = (
        "added" if before is None else "removed" if after is None else "modified"
    )
    old, old_note = _text(objects, before)
    new, new_note = _text(objects, after)
    shown = printable(path)  # a name need not be UTF-8, and may hold control characters
    if old is None or new is None:
        return FileChange(path=shown, kind=kind, note=old_note or new_note)
    lines = list(difflib.unified_diff(
        old, new, fromfile=f"a/{shown}" if before else "/dev/null",
        tofile=f"b/{shown}" if after else "/dev/null",
    ))
    lines = [printable(line if line.endswith("\n") else line + "\n") for line in lines]
    note = ""
    if len(lines) > MAX_DIFF_LINES:
        note = f"{len(lines) - MAX_DIFF_LINES:,} more diff lines not shown"
        lines = lines[:MAX_DIFF_LINES]
    return FileChange(path=shown, kind=kind, diff="".join(lines), note=note)


def changes(objects: Path, before: Manifest, after: Manifest) -> tuple[list[FileChange], str]:
    """Changed files in path order, at most MAX_FILES, and a note of any left out."""
    paths = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    shown = [_change(objects, p, before.get(p), after.get(p)) for p in paths[:MAX_FILES]]
    left_out = len(paths) - len(shown)
    return shown, f"{left_out} more changed files not shown" if left_out else ""
