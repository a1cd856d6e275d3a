"""One question to the harness's LLM, as the LLM-backed actions ask it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mlab.env.actions.base import ActionContext, ActionError
from pytest_mlab.llm.errors import PromptTooLong

if TYPE_CHECKING:
    from pytest_mlab.llm import Role


def ask(env: ActionContext, prompt: str, role: Role) -> str:
    """The model's reply to ``prompt``, stripped; empty if it said nothing. A prompt too
    long for the model is the action's error, as in MLAgentBench."""
    if env.llm is None:
        raise ActionError("This action needs an LLM, and this run has none.")
    try:
        reply = env.llm.complete([{"role": "user", "content": prompt}], role=role)
    except PromptTooLong:
        raise ActionError(f"The input is too long for the {role} model.") from None
    return reply.text.strip()


def fenced(text: str, language: str = "") -> str:
    """Wrap ``text`` in a code fence for a prompt."""
    return f"```{language}\n{text.rstrip(chr(10))}\n```"
