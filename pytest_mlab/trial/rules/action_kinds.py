"""Which actions run code and which write a named file, from the actions themselves."""

from __future__ import annotations

from pytest_mlab.env.actions import (
    LLM_ACTIONS,
    LOW_LEVEL_ACTIONS,
    REQUEST_HELP,
    RUN_COMMAND,
    Action,
)

_ALL: tuple[Action, ...] = (*LOW_LEVEL_ACTIONS, *LLM_ACTIONS, REQUEST_HELP, RUN_COMMAND)

CODE_ACTIONS = frozenset(action.name for action in _ALL if action.writes == "*")
"""Actions that run code (a script, a REPL command, a shell command)."""
FILE_WRITERS = {action.name: action.writes for action in _ALL
                if action.writes is not None and action.writes != "*"}
"""Actions that write one file themselves -> the argument that names it."""
CODE_ARGUMENT = {"Python REPL": "command", "Run Command": "command"}
"""Code actions whose code is in an argument (Execute Script's is in a file)."""
