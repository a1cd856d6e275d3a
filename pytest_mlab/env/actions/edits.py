"""Undo Edit Script, and the backups that make it possible."""

from __future__ import annotations

from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.files import READ_LIMIT
from pytest_mlab.env.actions.paths import inside, relative
from pytest_mlab.env.actions.reading import clipped_text


def undo_edit_script(env: ActionContext, script_name: str) -> str:
    path = inside(env.workspace.root, script_name)
    rel = relative(env.workspace.root, path)
    if not env.backups.undo(path):
        raise ActionError(f"There is no earlier version of {rel} to go back to.")
    if not path.exists():
        return f"Undid the last edit: {rel} did not exist before it, so it is gone."
    text = clipped_text(path, READ_LIMIT, errors="replace")
    return f"Undid the last edit of {rel}. It now reads:\n{text}"


UNDO_EDIT_SCRIPT = Action(
    "Undo Edit Script", "Undo the last change an action made to a file.",
    {"script_name": "a file relative to the workspace"}, undo_edit_script,
    writes="script_name",
)
