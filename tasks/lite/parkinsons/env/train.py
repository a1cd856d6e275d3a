"""Forecast three UPDRS part scores at the test patients' later visits; write submission.csv.

A deliberately simple starting point: each score is forecast as the patient's last known
score plus an average change per month, learned by linear regression from the training
patients. It ignores the proteins, age and sex. The training patients are split into a
fitting part and a validation part at random (the split follows MLAB_SEED), and the
submission comes from the model fitted on the fitting part.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

TARGETS = ["updrs_1", "updrs_2", "updrs_3"]
HISTORY_MONTHS = 12


def smape(actual: np.ndarray, predicted: np.ndarray) -> float:
    denominator = np.abs(actual) + np.abs(predicted)
    ratio = np.divide(
        2 * np.abs(predicted - actual),
        denominator,
        out=np.zeros_like(denominator),
        where=denominator > 0,
    )
    return float(100 * np.mean(ratio))


class LastPlusTrend:
    """Score = last score in the first year + b0 + b1 * months since month 12."""

    def fit(self, visits: pd.DataFrame) -> LastPlusTrend:
        history = visits[visits["visit_month"] <= HISTORY_MONTHS]
        later = visits[visits["visit_month"] > HISTORY_MONTHS]
        last = self._last(history, later)
        months = later[["visit_month"]] - HISTORY_MONTHS
        self.models = {t: LinearRegression().fit(months, later[t] - last[t]) for t in TARGETS}
        return self

    def predict(self, history: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
        last = self._last(history, rows)
        months = rows[["visit_month"]] - HISTORY_MONTHS
        predicted = {t: last[t] + model.predict(months) for t, model in self.models.items()}
        return pd.DataFrame(predicted, index=rows.index).clip(lower=0)

    @staticmethod
    def _last(history: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
        last = history.sort_values("visit_month").groupby("patient_id")[TARGETS].last()
        return last.reindex(rows["patient_id"]).set_axis(rows.index)


def main() -> None:
    seed = int(os.environ.get("MLAB_SEED", "0"))
    train = pd.read_csv("train.csv")
    history = pd.read_csv("test_history.csv")
    test = pd.read_csv("test.csv")

    # Hold out a fifth of the patients and score them as the test patients are scored.
    patients = np.random.default_rng(seed).permutation(train["patient_id"].unique())
    held_out = train["patient_id"].isin(patients[: len(patients) // 5])
    fit, val = train[~held_out], train[held_out]
    model = LastPlusTrend().fit(fit)
    val_later = val[val["visit_month"] > HISTORY_MONTHS]
    predicted = model.predict(val[val["visit_month"] <= HISTORY_MONTHS], val_later)
    print(f"Validation SMAPE: {smape(val_later[TARGETS].to_numpy(), predicted.to_numpy()):.2f}")

    predicted = model.predict(history, test)
    submission = pd.concat([test[["Id"]], predicted], axis=1)
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")


if __name__ == "__main__":
    main()
