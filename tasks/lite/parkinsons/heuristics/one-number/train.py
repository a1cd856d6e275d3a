"""The ladder's one-number rung: the starter holding out a hundredth of the training
patients instead of a fifth, so that it fits on nearly all of them."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression
from threadpoolctl import threadpool_limits
from visits import HISTORY_MONTHS, TARGETS, first_year, print_validation, write_submission

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)


class LastPlusTrend:
    """Score = last score in the first year + b0 + b1 * months since month 12."""

    def fit(self, visits: pd.DataFrame) -> LastPlusTrend:
        history, later = first_year(visits)
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
    held_out = train["patient_id"].isin(patients[: len(patients) // 100])
    fit, val = train[~held_out], train[held_out]
    model = LastPlusTrend().fit(fit)
    print_validation(model, val)
    write_submission(test, model.predict(history, test))


if __name__ == "__main__":
    main()
