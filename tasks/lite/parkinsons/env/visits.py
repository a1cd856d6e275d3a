"""What train.py shares with any other script here: the three scores, the first year
known of every patient, the metric, the validation print-out and the submission file."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import pandas as pd

TARGETS = ["updrs_1", "updrs_2", "updrs_3"]
HISTORY_MONTHS = 12


class Forecaster(Protocol):
    def predict(self, history: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame: ...


def smape(actual: np.ndarray, predicted: np.ndarray) -> float:
    """Symmetric mean absolute percentage error in percent (0-200); a pair of zeros counts 0."""
    denominator = np.abs(actual) + np.abs(predicted)
    ratio = np.divide(
        2 * np.abs(predicted - actual),
        denominator,
        out=np.zeros_like(denominator),
        where=denominator > 0,
    )
    return float(100 * np.mean(ratio))


def first_year(visits: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The visits of the first HISTORY_MONTHS months, and the later ones to forecast."""
    known = visits["visit_month"] <= HISTORY_MONTHS
    return visits[known], visits[~known]


def print_validation(model: Forecaster, held_out: pd.DataFrame) -> None:
    """The SMAPE of the held-out patients' later visits forecast from their first year."""
    history, later = first_year(held_out)
    predicted = model.predict(history, later)
    print(f"Validation SMAPE: {smape(later[TARGETS].to_numpy(), predicted.to_numpy()):.2f}")


def write_submission(test: pd.DataFrame, predicted: pd.DataFrame) -> None:
    submission = pd.concat([test[["Id"]], predicted], axis=1)
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")
