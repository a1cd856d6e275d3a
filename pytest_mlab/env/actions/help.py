"""Request Help: offered only in an interactive run, answered by a person."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mlab.env.actions.base import Action, ActionError

if TYPE_CHECKING:
    from pytest_mlab.env.environment import Environment


def request_help(env: Environment, request: str) -> str:
    if env.ask is None:
        raise ActionError("Request Help is only available in an interactive run.")
    return env.ask(request)


REQUEST_HELP = Action(
    "Request Help", "Ask the person running this trial a question; returns their answer.",
    {"request": "your question"}, request_help,
)
