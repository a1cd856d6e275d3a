"""Score a house-price submission by mean absolute error against the hidden answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.taskkit.submission import read_csv_submission


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="Id")["price"]
    submission = read_csv_submission(workspace / "submission.csv", "Id", ["price"])
    prices = submission.finite_numbers(["price"], described_as="a price")[:, 0]

    predicted = submission.in_answer_order(prices, answers.index)
    return float(np.mean(np.abs(predicted - answers.to_numpy())))
