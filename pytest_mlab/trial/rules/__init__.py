"""Rule checks over a trial's trace: each reads the steps, the snapshots and the task's
facts, and returns a flag (a check, a step, a sentence) for each finding. They run at the
end of every trial and again on demand (``python -m pytest_mlab check RUN``)."""

from __future__ import annotations

from collections.abc import Callable

from pytest_mlab.core.rule_flags import RuleFlag
from pytest_mlab.trial.rules.answer_reads import answer_reads
from pytest_mlab.trial.rules.evidence import TrialEvidence
from pytest_mlab.trial.rules.left_running import left_running
from pytest_mlab.trial.rules.reach import harness_paths, network
from pytest_mlab.trial.rules.submission_source import copied_from_data, written_by_action

Check = Callable[[TrialEvidence], list[RuleFlag]]
CHECKS: tuple[Check, ...] = (written_by_action, copied_from_data, answer_reads, network,
                             harness_paths, left_running)


def check_trial(evidence: TrialEvidence) -> list[RuleFlag]:
    """Every check's flags, in step order."""
    flags = [flag for check in CHECKS for flag in check(evidence)]
    return sorted(flags, key=lambda flag: (flag.step is None, flag.step or 0))


__all__ = ["CHECKS", "TrialEvidence", "check_trial"]
