"""Score a Titanic submission by log-loss skill against the hidden answers.

Skill = 1 - (log loss of the submitted probabilities) / (log loss of the test set's own
survival rate given to everyone): 0 for knowing nothing about any passenger, 1 for
certainty that is always right, negative for worse than knowing nothing. Relative gains
are then measured from "knows nothing", not from an unreachable log loss of 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

from pytest_mlab.taskkit.submission import read_csv_submission

# As Kaggle's log loss: a certain and wrong answer costs about 34.5 nats, not infinity.
EPSILON = 1e-15


def log_loss(outcome: npt.NDArray[np.float64], probability: npt.NDArray[np.float64]) -> float:
    p = np.clip(probability, EPSILON, 1 - EPSILON)
    return float(-np.mean(outcome * np.log(p) + (1 - outcome) * np.log(1 - p)))


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="PassengerId")["Survived"]
    submission = read_csv_submission(workspace / "submission.csv", "PassengerId", ["Survived"])
    probability = submission.finite_numbers(["Survived"], described_as="a probability")[:, 0]
    if ((probability < 0) | (probability > 1)).any():
        raise submission.invalid("has a Survived probability outside 0 to 1")

    predicted = submission.in_answer_order(
        probability, answers.index, rows="test PassengerId(s)"
    ).astype(float)
    outcome = answers.to_numpy(dtype=float)
    knows_nothing = log_loss(outcome, np.full_like(outcome, outcome.mean()))
    return 1 - log_loss(outcome, predicted) / knows_nothing
