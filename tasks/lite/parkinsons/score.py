"""Score a forecast of three UPDRS part scores by SMAPE (0-200) against the hidden answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.taskkit.submission import read_csv_submission

TARGETS = ["updrs_1", "updrs_2", "updrs_3"]


def smape(actual: np.ndarray, predicted: np.ndarray) -> float:
    """Symmetric mean absolute percentage error in percent; a pair of zeros counts 0."""
    total = np.abs(actual) + np.abs(predicted)
    # Where both are zero the error is zero too, so any divisor serves there.
    return float(100 * np.mean(2 * np.abs(predicted - actual) / np.where(total > 0, total, 1.0)))


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="Id")[TARGETS]
    submission = read_csv_submission(workspace / "submission.csv", "Id", TARGETS)
    forecasts = np.stack([submission.numbers(target).to_numpy(dtype=float) for target in TARGETS])
    bad = ~np.isfinite(forecasts) | (forecasts < 0)
    if bad.any():
        target = TARGETS[int(np.argmax(bad.any(axis=1)))]
        raise submission.invalid(f"has a {target} value that is missing, negative or not finite")

    predicted = submission.in_answer_order(forecasts.T, answers.index)
    return smape(answers.to_numpy(dtype=float).ravel(), predicted.ravel())
