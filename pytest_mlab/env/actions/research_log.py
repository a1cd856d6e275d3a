"""The research log the harness keeps for the agent, and the actions that use it."""

from __future__ import annotations

from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.llm_call import ask


def _log(env: ActionContext) -> str:
    return "\n\n".join(f"[{n}] {entry}" for n, entry in enumerate(env.research_log, 1))


def reflection(env: ActionContext, things_to_reflect_on: str) -> str:
    if not things_to_reflect_on.strip():
        raise ActionError("Say what to reflect on in things_to_reflect_on.")
    log = _log(env) or "(nothing recorded yet)"
    prompt = (f"We are working on this research problem:\n{env.research_problem}\n\n"
              f"The research log so far:\n{log}\n\n"
              f"Reflect on the following: {things_to_reflect_on}\n"
              "Answer in plain paragraphs, as truthfully as you can; say where the log "
              "gives no evidence.")
    # The fast model, as in MLAgentBench: reflection is a summary of the log.
    reply = ask(env, prompt, "fast")
    return f"Reflection: {reply}" if reply else "The model gave an empty reflection."


def retrieval_from_research_log(env: ActionContext, current_plan: str) -> str:
    if not env.research_log:
        return "The research log is empty."
    # The research agent asks with an empty plan, as the original's did.
    plan = current_plan.strip() or "(not given)"
    prompt = (f"We are working on this research problem:\n{env.research_problem}\n\n"
              f"The current research plan and status:\n{plan}\n\n"
              f"The research log, entry by entry:\n{_log(env)}\n\n"
              "Concisely summarise and list everything in the log that will help with the "
              "next steps: results and their numbers, changed files, failed attempts.")
    reply = ask(env, prompt, "fast")
    return reply or "The model retrieved nothing from the log."


def append_summary(env: ActionContext, content: str) -> str:
    if not content.strip():
        raise ActionError("There is nothing to append: content is empty.")
    env.research_log.append(content.strip())
    return (f"Appended entry {len(env.research_log)} ({len(content.strip())} characters) "
            "to the research log.")


REFLECTION = Action(
    "Reflection",
    "Look over the past steps, as the research log holds them, and reflect. Say in detail "
    "what to reflect on and what should be returned.",
    {"things_to_reflect_on": "what to reflect on and what to return, in detail"},
    reflection,
)
RETRIEVAL_FROM_RESEARCH_LOG = Action(
    "Retrieval from Research Log",
    "Recall what the research log holds that matters for your current plan.",
    {"current_plan": "your current research plan and status, in detail"},
    retrieval_from_research_log,
)
APPEND_SUMMARY_TO_RESEARCH_LOG = Action(
    "Append Summary to Research Log",
    "Record a summary of progress (results, changes, conclusions) in the research log, "
    "which persists for the rest of the trial.",
    {"content": "the summary to record"},
    append_summary,
)
