"""Score a Titanic submission by accuracy against the hidden answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.taskkit.submission import read_csv_submission


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="PassengerId")["Survived"]
    submission = read_csv_submission(workspace / "submission.csv", "PassengerId", ["Survived"])
    labels = submission.numbers("Survived")
    if not labels.isin([0, 1]).all():
        raise submission.invalid("has a Survived value that is not 0 or 1")

    predicted = submission.in_answer_order(
        labels.to_numpy().astype("int64"), answers.index, rows="test PassengerId(s)"
    )
    return float(np.mean(predicted == answers.to_numpy()))
