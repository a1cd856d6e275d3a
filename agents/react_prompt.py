"""What the research agent is told: its instructions and the recent steps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_mlab import Action
from pytest_mlab.core.text import clip

RECENT_STEPS = 3
_OLDER_INPUT_LIMIT = 200


@dataclass(frozen=True)
class Memory:
    """One step as the agent remembers it."""

    step: int
    response: str
    """The model's own answer that chose the action."""
    action: str
    action_input: str
    observation: str
    """Already shortened where it was long."""


def instructions(research_problem: str, actions: Sequence[Action], tool_calling: bool) -> str:
    tools = "\n\n".join(action.describe() for action in actions)
    if tool_calling:
        answer = (
            "Each turn, write your Reflection, Research Plan and Status, Fact Check and "
            "Thought as text, then call exactly one of the tools."
        )
    else:
        answer = (
            "Each turn, answer in exactly this form, every field present:\n"
            "Reflection: what the last observation means, and what went wrong if anything did\n"
            "Research Plan and Status: your high-level plan, with what is done, what is in "
            "progress, and the results confirmed so far\n"
            "Fact Check: each claim in the plan, marked confirmed (by an observation you "
            "saw) or guessed\n"
            "Thought: what you will do now and why\n"
            "Action: the name of one action from the list\n"
            "Action Input: a JSON object with that action's arguments"
        )
    return (
        "You are a careful machine-learning researcher. You work in a folder of files and "
        "change it only through the actions below.\n\n"
        f"The research problem:\n{research_problem}\n\n"
        f"Actions:\n{tools}\n\n"
        "How to work: first understand the files and run the starting script to measure a "
        "baseline. Keep a short plan and revise it as you learn. Record only results you "
        "saw when running code. Do not try to install packages. Check the final result "
        "yourself, then submit once with Final Answer.\n\n" + answer
    )


def history(memories: Sequence[Memory], retrieved: str | None) -> str:
    """The recent steps in full; older ones in one line each (or the research log's
    retrieved notes, in retrieval mode)."""
    if not memories:
        return "No steps yet. Begin."
    recent = memories[-RECENT_STEPS:]
    older = memories[:-RECENT_STEPS]
    parts = []
    if retrieved is not None:
        parts.append(f"Notes retrieved from your research log:\n{retrieved}")
    elif older:
        parts.append("Earlier steps (observations left out):\n" + "\n".join(
            f"Step {m.step}: {m.action} {clip(m.action_input, _OLDER_INPUT_LIMIT)}"
            for m in older
        ))
    for m in recent:
        parts.append(f"Step {m.step}, your answer:\n{m.response}\n\n"
                     f"Step {m.step}, observation:\n{m.observation}")
    parts.append("Now give your next answer.")
    return "\n\n".join(parts)
