"""titanic scores survival probabilities by log-loss skill: 0 for the test set's own
survival rate, 1 for certain and right, below 0 for worse than knowing nothing, and a
probability outside 0 to 1 is an invalid submission."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest
from task_scripts import load_script

from pytest_mlab.core.errors import InvalidSubmission

TASK = Path(__file__).parent.parent.parent / "tasks" / "lite" / "titanic"
OUTCOMES = [1, 0, 0, 1, 0]


def _scorer() -> ModuleType:
    module = load_script(TASK, "score.py")
    return module


def _score(tmp_path: Path, probabilities: list[float]) -> float:
    private, workspace = tmp_path / "private", tmp_path / "workspace"
    private.mkdir(parents=True)
    workspace.mkdir(parents=True)
    ids = list(range(1, len(OUTCOMES) + 1))
    pd.DataFrame({"PassengerId": ids, "Survived": OUTCOMES}).to_csv(
        private / "answers.csv", index=False)
    pd.DataFrame({"PassengerId": ids[::-1], "Survived": probabilities[::-1]}).to_csv(
        workspace / "submission.csv", index=False)
    return float(_scorer().score(workspace, private))


def test_the_base_rate_scores_zero_and_certainty_one(tmp_path: Path) -> None:
    assert _score(tmp_path / "a", [0.4] * 5) == pytest.approx(0.0)
    assert _score(tmp_path / "b", [float(y) for y in OUTCOMES]) == pytest.approx(1.0)


def test_informative_probabilities_score_between_and_confident_errors_below_zero(
    tmp_path: Path,
) -> None:
    assert 0 < _score(tmp_path / "a", [0.7, 0.3, 0.2, 0.6, 0.4]) < 1
    assert _score(tmp_path / "b", [0.0, 1.0, 0.0, 1.0, 0.0]) < 0


def test_a_probability_above_one_is_invalid(tmp_path: Path) -> None:
    with pytest.raises(InvalidSubmission, match="Survived probability outside 0 to 1"):
        _score(tmp_path, [1.5, 0.0, 0.0, 1.0, 0.0])
