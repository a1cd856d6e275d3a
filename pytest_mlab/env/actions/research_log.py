"""The research log the harness keeps for the agent, and the actions that use it."""

from __future__ import annotations

from pytest_mlab.core.text import clip
from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.files import READ_LIMIT
from pytest_mlab.env.actions.llm_call import ask

LOG_PROMPT_LIMIT = 40_000
"""The most of the log a prompt holds; beyond it the middle is elided."""


def _log(env: ActionContext) -> str:
    entries = (f"[{n}] {entry}" for n, entry in enumerate(env.research_log, 1))
    return clip("\n\n".join(entries), LOG_PROMPT_LIMIT)


def reflection(env: ActionContext, things_to_reflect_on: str) -> str:
    if not things_to_reflect_on.strip():
        raise ActionError("Say what to reflect on in things_to_reflect_on.")
    log = _log(env) or "(nothing recorded yet)"
    prompt = (f"You are helping someone work on this research problem:\n"
              f"{env.research_problem}\n\nTheir research log so far:\n{log}\n\n"
              f"Reflect on the following, drawing on the log: {things_to_reflect_on}\n"
              "Be concrete and brief; say where the log gives no evidence.")
    reply = ask(env, prompt, "main")
    return clip(reply, READ_LIMIT) if reply else "The model gave an empty reflection."


def retrieval_from_research_log(env: ActionContext, current_plan: str) -> str:
    if not current_plan.strip():
        raise ActionError("Give the current plan in current_plan.")
    if not env.research_log:
        return "The research log is empty."
    prompt = (f"A research log, entry by entry:\n{_log(env)}\n\nThe current plan:\n"
              f"{current_plan}\n\nPick out what in the log matters for carrying out this "
              "plan: results, numbers, file names, failed attempts. Quote or summarise "
              "those entries with their numbers; leave out the rest.")
    reply = ask(env, prompt, "fast")
    return clip(reply, READ_LIMIT) if reply else "The model retrieved nothing from the log."


def append_summary(env: ActionContext, content: str) -> str:
    if not content.strip():
        raise ActionError("There is nothing to append: content is empty.")
    env.research_log.append(content.strip())
    return (f"Appended entry {len(env.research_log)} ({len(content.strip())} characters) "
            "to the research log.")


REFLECTION = Action(
    "Reflection",
    "Step back and think about the research problem and the progress so far, with the "
    "research log in view.",
    {"things_to_reflect_on": "the question to think about, in detail"},
    reflection,
)
RETRIEVAL_FROM_RESEARCH_LOG = Action(
    "Retrieval from Research Log",
    "Recall what the research log holds that matters for your current plan.",
    {"current_plan": "your current plan, in detail"},
    retrieval_from_research_log,
)
APPEND_SUMMARY_TO_RESEARCH_LOG = Action(
    "Append Summary to Research Log",
    "Record a summary of progress (results, changes, conclusions) in the research log, "
    "which persists for the rest of the trial.",
    {"content": "the summary to record"},
    append_summary,
)
