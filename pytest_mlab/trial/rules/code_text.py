"""The code a step ran, as text: a REPL or shell command, or the script Execute Script
ran as the step before it left that script."""

from __future__ import annotations

import re

from pytest_mlab.core.trace import Step
from pytest_mlab.trial.rules.action_kinds import CODE_ARGUMENT
from pytest_mlab.trial.rules.evidence import TrialEvidence


def code_of(evidence: TrialEvidence, step: Step) -> str:
    """The code ``step`` ran; '' for a step that ran none (or whose script is not kept)."""
    argument = CODE_ARGUMENT.get(step.action)
    if argument is not None:
        return str(step.args.get(argument, ""))
    if step.action == "Execute Script":
        name = evidence.workspace_path(str(step.args.get("script_name", "")))
        return (evidence.text(step.step - 1, name) or "") if name else ""
    return ""


def names(text: str, name: str) -> bool:
    """Whether ``text`` holds ``name`` as a whole word (not inside a longer name)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text) is not None


def new_code_of(evidence: TrialEvidence, step: Step) -> str:
    """The lines of the code ``step`` ran that the agent wrote: for a script of the
    workspace, those it did not hold as provisioned (so the starter's own lines, a
    download its author left in, are not the agent's doing)."""
    code = code_of(evidence, step)
    if step.action != "Execute Script" or not code:
        return code
    name = evidence.workspace_path(str(step.args.get("script_name", "")))
    given = evidence.text(0, name) if name else None
    if given is None:
        return code
    kept = set(given.splitlines())
    return "\n".join(line for line in code.splitlines() if line not in kept)
