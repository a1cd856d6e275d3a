"""Score an essay-scoring submission by MCRMSE: the mean over targets of each column's RMSE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.taskkit.submission import read_csv_submission


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="id")
    # The targets are the answers' columns, in their order.
    targets = list(answers.columns)
    submission = read_csv_submission(workspace / "submission.csv", "id", targets)
    values = submission.finite_numbers(targets)

    predicted = submission.in_answer_order(values, answers.index)
    column_rmse = np.sqrt(np.mean((predicted - answers.to_numpy()) ** 2, axis=0))
    return float(np.mean(column_rmse))
