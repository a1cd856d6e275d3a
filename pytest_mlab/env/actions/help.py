"""Request Help: offered only in an interactive run, answered by a person."""

from __future__ import annotations

from pytest_mlab.env.actions.base import Action, ActionContext, ActionError


def request_help(env: ActionContext, request: str) -> str:
    if env.ask is None:
        raise ActionError("Request Help is only available in an interactive run.")
    return env.ask(request)


REQUEST_HELP = Action(
    "Request Help", "Ask the person running this trial a question; returns their answer.",
    {"request": "your question"}, request_help,
)
