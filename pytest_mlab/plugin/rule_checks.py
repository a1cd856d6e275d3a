"""What a trial's rule checks are given by the session: the harness's folders, and the
client of the LLM judge where --mlab-judge-llm asks for one."""

from __future__ import annotations

from typing import Any

from pytest_mlab.llm.ledger import CostLedger
from pytest_mlab.plugin.config.settings import Settings
from pytest_mlab.trial.spec import TrialSpec


def rule_parts(settings: Settings, spec: TrialSpec) -> dict[str, Any]:
    """``TrialParts`` fields: ``harness_paths`` and ``rule_judge``."""
    judge = None
    if settings.llm.judge is not None:
        # The session's ledger: the judge's spending counts against --mlab-max-session-cost.
        ledger = CostLedger(settings.run_files.spend_ledger)
        label = f"{spec.task.name}/{spec.agent}/{spec.llm} trial {spec.trial} (judge)"
        judge = settings.llm.client(settings.llm.judge, ledger, label)
    return {"harness_paths": (settings.cache_dir, settings.report_dir), "rule_judge": judge}
