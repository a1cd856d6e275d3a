"""Backups of the files the agent's actions changed, for Undo Edit Script."""

from __future__ import annotations

from pathlib import Path


class Backups:
    """Earlier contents of each file the agent changed through an action.

    Kept by the harness, outside the workspace, so a script cannot tamper with it.
    """

    def __init__(self) -> None:
        self._earlier: dict[Path, list[bytes | None]] = {}

    def remember(self, path: Path) -> None:
        before = path.read_bytes() if path.is_file() else None
        self._earlier.setdefault(path, []).append(before)

    def undo(self, path: Path) -> bool:
        """Restore the previous content; False if there is none."""
        versions = self._earlier.get(path)
        if not versions:
            return False
        before = versions.pop()
        if before is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(before)
        return True
