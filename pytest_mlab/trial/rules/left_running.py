"""Processes a step's code left running when it ended: the sandbox stopped them and said
so in the step's observation."""

from __future__ import annotations

import re

from pytest_mlab.core.rule_flags import RuleFlag
from pytest_mlab.trial.rules.action_kinds import CODE_ACTIONS
from pytest_mlab.trial.rules.evidence import TrialEvidence

# The sentence env/actions/execute.py adds to the observation.
_LEFT = re.compile(r"\b(\d+) process(?:es)? it left running (?:was|were) stopped when it ended")


def left_running(evidence: TrialEvidence) -> list[RuleFlag]:
    flags = []
    for step in evidence.steps:
        # Only the harness's status line, before the output a script could forge it in.
        status = step.observation.partition(" Output:")[0]
        found = _LEFT.search(status) if step.action in CODE_ACTIONS else None
        if found is not None:
            count = int(found[1])
            flags.append(RuleFlag(check="left-running", step=step.step, sentence=(
                f"the code {step.action} ran left {count} process{'es' if count != 1 else ''} "
                "running when it ended (the sandbox stopped them)")))
    return flags
