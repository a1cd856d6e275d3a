"""A trial's record names the rule it was judged by, whatever ended it: judge() applies the
Final Answer rule, so it is judge() that records it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.task import load_task
from pytest_mlab.trial.act import AgentRun
from pytest_mlab.trial.judge import judge
from pytest_mlab.trial.scoring import Scored
from pytest_mlab.trial.spec import TrialSpec

GUESS = Path(__file__).parent / "examples" / "guess" / "task.toml"


@pytest.mark.parametrize("required", [True, False])
@pytest.mark.parametrize("ending", ["scored", "crashed", "invalid"])
def test_the_record_says_whether_a_final_answer_was_required(
    required: bool, ending: str,
) -> None:
    spec = TrialSpec(load_task(GUESS), "baseline", None, 0, seed=0)
    run = AgentRun("agent returned", 3, 1.0,
                   agent_error="RuntimeError: boom" if ending == "crashed" else None)
    scored = Scored(score=None if ending == "invalid" else 5.0,
                    invalid="no answer.txt" if ending == "invalid" else None)
    result = judge("guess[baseline-t0]", spec, run, scored, Baseline(10.0, 0.1, 5, "recorded"),
                   0.1, "bwrap", require_final_answer=required)
    assert result.final_answer_required is required
    # Returned without a Final Answer: only a scored run where none is required passes.
    assert result.success is (ending == "scored" and not required), result.message
