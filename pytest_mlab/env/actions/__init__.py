"""The actions an environment offers, by name."""

from __future__ import annotations

from pytest_mlab.env.actions.backups import Backups
from pytest_mlab.env.actions.base import Action, ActionError
from pytest_mlab.env.actions.edits import UNDO_EDIT_SCRIPT
from pytest_mlab.env.actions.execute import EXECUTE_SCRIPT, FINAL_ANSWER, PYTHON_REPL, RUN_COMMAND
from pytest_mlab.env.actions.files import (
    APPEND_FILE,
    COPY_FILE,
    INSPECT_SCRIPT_LINES,
    LIST_FILES,
    READ_FILE,
    WRITE_FILE,
)
from pytest_mlab.env.actions.help import REQUEST_HELP
from pytest_mlab.env.actions.llm_backed import LLM_ACTIONS

LOW_LEVEL_ACTIONS: tuple[Action, ...] = (
    LIST_FILES, READ_FILE, WRITE_FILE, APPEND_FILE, COPY_FILE, UNDO_EDIT_SCRIPT,
    EXECUTE_SCRIPT, PYTHON_REPL, INSPECT_SCRIPT_LINES, FINAL_ANSWER,
)
"""Every action that needs no LLM; Request Help joins them in interactive runs."""

__all__ = ["LLM_ACTIONS", "LOW_LEVEL_ACTIONS", "REQUEST_HELP", "RUN_COMMAND", "Action",
           "ActionError", "Backups"]
