"""Undo Edit Script, and the backups that make it possible."""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.core.text import clip
from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.files import READ_LIMIT
from pytest_mlab.env.actions.paths import inside, relative


class EditHistory:
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


def undo_edit_script(env: ActionContext, script_name: str) -> str:
    path = inside(env.workspace.root, script_name)
    rel = relative(env.workspace.root, path)
    if not env.edits.undo(path):
        raise ActionError(f"There is no earlier version of {rel} to go back to.")
    if not path.exists():
        return f"Undid the last edit: {rel} did not exist before it, so it is gone."
    text = clip(path.read_text(errors="replace"), READ_LIMIT)
    return f"Undid the last edit of {rel}. It now reads:\n{text}"


UNDO_EDIT_SCRIPT = Action(
    "Undo Edit Script", "Undo the last change an action made to a file.",
    {"script_name": "a file relative to the workspace"}, undo_edit_script,
    writes="script_name",
)
