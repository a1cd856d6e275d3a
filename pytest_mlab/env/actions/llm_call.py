"""One question to the harness's LLM, as the LLM-backed actions ask it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mlab.env.actions.base import ActionContext, ActionError

if TYPE_CHECKING:
    from pytest_mlab.llm import Role


def ask(env: ActionContext, prompt: str, role: Role) -> str:
    """The model's reply to ``prompt``, stripped; empty if it said nothing."""
    if env.llm is None:
        raise ActionError("This action needs an LLM, and this run has none.")
    return env.llm.complete([{"role": "user", "content": prompt}], role=role).text.strip()


def fenced(text: str, language: str = "") -> str:
    """Wrap ``text`` in a code fence for a prompt."""
    return f"```{language}\n{text.rstrip(chr(10))}\n```"
