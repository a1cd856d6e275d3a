"""Backups of the files the agent's actions changed, for Undo Edit Script."""

from __future__ import annotations

import itertools
from pathlib import Path

from pytest_mlab.core.file_copy import copy_file
from pytest_mlab.env.actions.errors import ActionError

BACKUP_MAX_BYTES = 64 << 20
"""A file larger than this gets no backup: Undo cannot take back an edit of it."""
BACKUPS_MAX_TOTAL_BYTES = 1 << 30
"""What a trial's backups may hold together; beyond it edits get no backup."""


class Backups:
    """Earlier versions of each file the agent changed through an action.

    Kept by the harness on disk in ``folder``, outside the workspace, so a script cannot
    tamper with them; copied there and back as streams, never read into memory.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._earlier: dict[Path, list[tuple[Path, int] | None]] = {}
        """File -> its earlier versions, oldest first: (copy, size), or None where it did
        not exist."""
        self._names = itertools.count()
        self._bytes = 0

    def remember(self, path: Path) -> str:
        """Back up ``path`` before an action changes it. Returns '' or, when there can be
        no backup, one sentence for the agent saying that Undo cannot take this edit back."""
        versions = self._earlier.setdefault(path, [])
        if not path.is_file():
            versions.append(None)
            return ""
        size = path.stat().st_size
        if size > BACKUP_MAX_BYTES:
            why = f"the file had {size:,} bytes, more than the {BACKUP_MAX_BYTES:,} backed up"
        elif self._bytes + size > BACKUPS_MAX_TOTAL_BYTES:
            why = f"the trial's backups already hold {self._bytes:,} bytes"
        else:
            copy = self.folder / str(next(self._names))
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                copy_file(path, copy)
            except OSError as error:
                copy.unlink(missing_ok=True)
                why = f"the backup could not be written ({error.strerror or error})"
            else:
                versions.append((copy, size))
                self._bytes += size
                return ""
        self.forget(path)
        return f"Undo cannot take this edit back: {why}."

    def forget(self, path: Path) -> None:
        """Drop every earlier version of ``path``."""
        for copy in self._earlier.pop(path, []):
            self._discard(copy)

    def _discard(self, version: tuple[Path, int] | None) -> None:
        if version is not None:
            self._bytes -= version[1]
            version[0].unlink(missing_ok=True)

    def undo(self, path: Path) -> bool:
        """Restore the previous content; False if there is none."""
        versions = self._earlier.get(path)
        if not versions:
            return False
        if path.exists() and not path.is_file():
            raise ActionError(f"{path.name} is no longer a regular file; Undo leaves it be.")
        before = versions[-1]
        if before is None:
            path.unlink(missing_ok=True)
        else:
            copy_file(before[0], path)
        self._discard(versions.pop())
        return True
