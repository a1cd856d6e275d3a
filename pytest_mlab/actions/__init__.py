"""The actions an environment offers, by name."""

from __future__ import annotations

from pytest_mlab.actions.base import Action, ActionError
from pytest_mlab.actions.execute import EXECUTE_SCRIPT, FINAL_ANSWER
from pytest_mlab.actions.files import LIST_FILES, READ_FILE, WRITE_FILE

DEFAULT_ACTIONS: tuple[Action, ...] = (
    LIST_FILES, READ_FILE, WRITE_FILE, EXECUTE_SCRIPT, FINAL_ANSWER,
)

__all__ = ["DEFAULT_ACTIONS", "Action", "ActionError"]
