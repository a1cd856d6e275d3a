"""Reads of what gives a task's answers away: the workspace files its ``answers`` list
names, and the installed data its ``hide`` list keeps from scripts."""

from __future__ import annotations

import fnmatch
import posixpath
import re

from pytest_mlab.core.plain_text import shown_name
from pytest_mlab.core.rule_flags import RuleFlag
from pytest_mlab.core.trace import Step
from pytest_mlab.trial.rules.code_text import code_of, names
from pytest_mlab.trial.rules.evidence import TrialEvidence

CHECK = "answer-read"


def _answer_files(evidence: TrialEvidence) -> list[str]:
    given = set(evidence.facts.data) | set(evidence.manifest(0))
    return sorted(rel for rel in given
                  if any(fnmatch.fnmatch(rel, p) for p in evidence.facts.answers))


def _named_by_argument(evidence: TrialEvidence, step: Step, answers: list[str]) -> str | None:
    for value in step.args.values():
        if isinstance(value, str) and evidence.workspace_path(value) in answers:
            return evidence.workspace_path(value)
    return None


def _hidden_named(code: str, hidden: tuple[str, ...]) -> str | None:
    for entry in hidden:
        module = entry.removeprefix("python:")
        if entry.startswith("python:"):
            name = re.escape(module)
            pattern = rf"\b(import|from)\s+{name}\b|import_module\(\s*['\"]{name}\b"
            if re.search(pattern, code):
                return f"the module {module}"
        elif entry in code:
            return entry
    return None


def answer_reads(evidence: TrialEvidence) -> list[RuleFlag]:
    answers = _answer_files(evidence)
    flags = []
    for step in evidence.steps:
        read = _named_by_argument(evidence, step, answers)
        if read is not None:
            flags.append(RuleFlag(check=CHECK, step=step.step, sentence=(
                f"the {step.action} action named {shown_name(read)}, which the task lists "
                "as giving its answers away")))
            continue
        code = code_of(evidence, step)
        named = next((rel for rel in answers if names(code, posixpath.basename(rel))), None)
        if named is not None:
            flags.append(RuleFlag(check=CHECK, step=step.step, sentence=(
                f"the code {step.action} ran names {shown_name(named)}, which the task lists "
                "as giving its answers away")))
            continue
        hidden = _hidden_named(code, evidence.facts.hidden)
        if hidden is not None:
            flags.append(RuleFlag(check=CHECK, step=step.step, sentence=(
                f"the code {step.action} ran names {shown_name(hidden)}, which the task "
                "hides from scripts because its answers could be read there")))
    return flags
