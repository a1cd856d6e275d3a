"""What the research agent remembers of its steps, and how the prompt shows them.

``paper`` history, as MLAgentBench: the last three steps in full (the answer, with the
plan's ** update marks taken out, and the observation, summarised where it was long), and
nothing older; in retrieval mode, once more than three steps are done, what was retrieved
from the research log comes first. Each step is marked as an earlier turn of the assistant,
as the original marked it, all within the one prompt. ``compact`` adds one line for every
older step.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_mlab.core.text import clip

from .react_format import FIELDS

RECENT_STEPS = 3
STEP_MARK = "Assistant:"
"""What precedes each earlier step: the original put Anthropic's assistant-turn marker
there, as plain text in the one user message (for every provider)."""
_OLDER_INPUT_LIMIT = 200


@dataclass(frozen=True)
class Memory:
    """One step as the agent remembers it."""

    number: int
    """Counts the agent's own steps from 1 (the environment's may differ: log calls)."""
    answer: str
    """The model's answer as the history shows it: its fields, and the action."""
    action: str
    action_input: str
    observation: str
    """Already summarised where it was long."""
    argument_error: bool = False
    """The Action Input could not be read, so no step was taken; forgotten after the
    next step that is taken."""


def clean_plan(plan: str) -> str:
    """The plan as carried over: without the ** marks of the last update."""
    return plan.strip().strip("`").strip().replace("**", "")


def answer_text(fields: dict[str, str]) -> str:
    shown = {**fields, "Research Plan and Status":
             clean_plan(fields.get("Research Plan and Status", ""))}
    return "\n".join(f"{name}: {shown[name]}" for name in FIELDS if name in shown)


def tool_answer_text(text: str, action: str, args: dict[str, Any] | str) -> str:
    """A tool-calling step: the model's text, then the tool it called and how."""
    arguments = args if isinstance(args, str) else json.dumps(args)
    return f"{text.strip()}\nAction: {action}\nAction Input: {arguments}".lstrip()


def _step(memory: Memory) -> str:
    return f"{STEP_MARK}\n{memory.answer}\nObservation:\n```\n{memory.observation}\n```"


def history(memories: Sequence[Memory], retrieved: str | None, compact: bool) -> str:
    """The part of the prompt after the instructions."""
    recent = memories[-RECENT_STEPS:]
    older = memories[:-RECENT_STEPS]
    parts = []
    if retrieved is not None:
        parts.append("Here is a summary of the relevant actions you took and what you "
                     f"observed:\n```\n{retrieved}\n```\nHere are your most recent steps "
                     f"exactly (at most {RECENT_STEPS}):")
    elif len(memories) <= RECENT_STEPS:  # the original said so only while all steps showed
        parts.append("Now begin.")
    if compact and older:
        parts.append("Earlier steps (observations left out):\n" + "\n".join(
            f"Step {m.number}: {m.action} {clip(m.action_input, _OLDER_INPUT_LIMIT)}"
            for m in older
        ))
    parts += [_step(memory) for memory in recent]
    return "\n\n".join(parts) + "\n" if parts else ""
