"""Score a review-sentiment submission: accuracy of the more probable class per review."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.taskkit.submission import read_csv_submission

CLASSES = ["other", "great"]
# Probabilities written as text may lose a little precision; more than this is an error.
SUM_TOLERANCE = 0.01


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="id")["label"]
    submission = read_csv_submission(workspace / "submission.csv", "id", CLASSES)
    values = submission.finite_numbers(CLASSES, described_as="a probability")
    if (values < 0).any() or (values > 1).any():
        raise submission.invalid("has a probability outside [0, 1]")
    if (np.abs(values.sum(axis=1) - 1) > SUM_TOLERANCE).any():
        raise submission.invalid(
            "has a row whose probabilities for other and great do not sum to 1"
        )

    probabilities = submission.in_answer_order(values, answers.index)
    # A tie goes to the first class, "other".
    predicted = np.where(probabilities[:, 1] > probabilities[:, 0], "great", "other")
    return float(np.mean(predicted == answers.to_numpy()))
