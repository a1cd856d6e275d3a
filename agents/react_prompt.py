"""What the research agent is told: the actions, the rules and the answer format.

The content follows MLAgentBench's research agent, in our own words: the agent starts
knowing nothing about the problem, keeps a plan and a status it carries over from step to
step, marks what changed, checks each fact, measures a baseline first, installs nothing,
and submits once. Each action is shown with its description, then, as in the original, a
usage block: the Action and Action Input lines of an answer that takes it, and what its
Observation holds (with native tool calling, only its input and what it returns).
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mlab import Action, Environment

from .react_format import FIELDS, THOUGHT_FIELDS, usage

PROMPT_ACTIONS = (
    "List Files", "Copy File", "Undo Edit Script", "Execute Script", "Request Help",
    "Final Answer", "Understand File", "Inspect Script Lines", "Edit Script (AI)",
)
"""Shown by default, in the original's order; the others stay valid if the model names
them (Read File, Write File, Python REPL, ...). Request Help exists only interactively."""
RETRIEVAL_ACTIONS = ("Reflection",)
"""Shown as well in retrieval mode, as in the original."""

RETURNS = {
    "List Files": "the files and folders in the directory (folders end in /), or an error "
                  "if it is not a directory",
    "Read File": "the content of the file",
    "Write File": "a confirmation that the file was written, or an error",
    "Append File": "a confirmation that the text was appended, or an error",
    "Copy File": "a confirmation that the file was copied, or an error saying why not",
    "Undo Edit Script": "the content of the script after the last edit was undone, or an "
                        "error if there is nothing to undo",
    "Execute Script": "what the script printed, or its error messages if it failed",
    "Python REPL": "what the code printed, or its error messages",
    "Inspect Script Lines": "the requested lines of the script, or an error if it does "
                            "not exist",
    "Final Answer": "nothing: the observation is empty",
    "Understand File": "a description of the relevant content and lines of the file, or an "
                       "error if it does not exist",
    "Edit Script (AI)": "the diff of the edit, which you should check; if it is far from "
                        "right, take it back with Undo Edit Script",
    "Edit Script Segment (AI)": "the diff of the edit, which you should check; if it is far "
                                "from right, take it back with Undo Edit Script",
    "Reflection": "the reflection",
    "Retrieval from Research Log": "what the research log holds that matters now",
    "Append Summary to Research Log": "a confirmation that the summary was recorded",
    "Request Help": "the answer of the person running the task",
}

FIELD_GUIDE = {
    "Reflection": "What does the observation mean? If there was an error, what caused it "
                  "and how would you debug it?",
    "Research Plan and Status": "The complete high-level research plan, with the current "
        "status and the confirmed results of each step noted briefly. Only progress made "
        "in earlier steps belongs here. Put any new or changed text between double "
        "asterisks **like this**; if nothing changed, copy the previous Research Plan and "
        "Status as it was. Keep the previous step's high-level plan in full unless you "
        "revise it on purpose.",
    "Fact Check": "Go through every objective statement in the updates to Research Plan "
                  "and Status and say for each whether it is a guess or was directly "
                  "confirmed by the observation just above. Performance numbers are "
                  "confirmed only by running the code and seeing the output.",
    "Thought": "What you are doing now, which action you will take and why.",
    "Action": "The name of one of the actions above.",
    "Action Input": "The input of the action, as valid JSON.",
}

RULES = (
    "Begin by drafting a high-level plan from what you understand of the problem and of "
    "the actions available, and write it into Research Plan and Status. You may change "
    "the plan later.",
    "Keep Research Plan and Status tidy and short. It tracks 1) the high-level plan, which "
    "may be revised, 2) which steps are finished and which are under way, and 3) for each "
    "finished step, a brief result and conclusion.",
    "Research Plan and Status records only progress made in earlier steps. Never put in a "
    "result that the previous observation did not directly confirm.",
    "A performance number or estimate may enter the status only after you have run the "
    "code and seen it in the output.",
    "Design your experiments well and, wherever it applies, define and measure the "
    "baseline performance of the system or model before you try to improve it.",
    "Stick to the plan and reach the goal by the most direct route.",
    "Before you draw a conclusion, set out the experimental results and the reasoning "
    "that support it.",
    "Do not install any new packages or libraries.",
    "Once you believe the problem is solved, submit with the Final Answer action. You can "
    "submit only once, so check first that the goal is really met.",
)


def prompt_actions(env: Environment, retrieval: bool) -> list[Action]:
    names = PROMPT_ACTIONS + (RETRIEVAL_ACTIONS if retrieval else ())
    return [env.actions[name] for name in names if name in env.actions]


def details(action: Action) -> str:
    """What an action does, its input and what it returns."""
    returns = RETURNS.get(action.name, "the result of the action")
    template = usage(action.parameters).replace("\n", "\n  ")
    return f"{action.description}\n  Action Input: {template}\n  Returns: {returns}"


def describe(action: Action) -> str:
    """One action as the prompt lists it with native tool calling."""
    return f"- {action.name}: {details(action)}"


def usage_block(action: Action) -> str:
    """One action as the prompt lists it: its description, and an example of the lines of
    an answer that takes it, with what its observation holds."""
    returns = RETURNS.get(action.name, "the result of the action")
    template = usage(action.parameters).replace("\n", "\n  ")
    return (f"- {action.name}:\n  {action.description}\n  Usage:\n  ```\n"
            f"  Action: {action.name}\n  Action Input: {template}\n"
            f"  Observation: [{returns}]\n  ```")


def answer_format(tool_calling: bool) -> str:
    if tool_calling:
        guide = "\n".join(f"{name}: {FIELD_GUIDE[name]}" for name in THOUGHT_FIELDS)
        return ("Every time, first write these entries as text, then call exactly one of "
                f"the tools (an action) with its input:\n{guide}")
    guide = "\n".join(f"{name}: {FIELD_GUIDE[name]}" for name in FIELDS)
    return (f"Answer in exactly this format every time:\n{guide}\n"
            "Observation:\n```\nthe result of the action\n```")


def instructions(research_problem: str, actions: Sequence[Action], tool_calling: bool) -> str:
    """The instructions, the same for every step of a trial."""
    listed = describe if tool_calling else usage_block
    tools = "\n\n".join(listed(action) for action in actions)
    rules = "\n".join(f"- {rule}" for rule in RULES)
    return (
        "You are a research assistant working on a machine-learning research problem. "
        f"These are the actions you can take:\n\n{tools}\n\n"
        f"Research problem: {research_problem}\n\n"
        "You start knowing nothing about this problem.\n\n"
        f"Keep to these rules for the whole task:\n{rules}\n\n"
        f"{answer_format(tool_calling)}\n"
    )


def retry_note(tool_calling: bool) -> str:
    """Added to the prompt after an unusable answer, as often as it happens."""
    if tool_calling:
        return ("\n\nYour last answer could not be used. Write the entries "
                f"{', '.join(THOUGHT_FIELDS)}, then call exactly one of the tools.\n")
    return ("\n\nYour last answer could not be used. Answer again in the format, with every "
            f"entry: {', '.join(FIELDS)}.\n")
