"""Forecast three UPDRS part scores at the test patients' later visits; write submission.csv.

A patient's score moves along a straight line whose slope varies between patients.
The level comes from the patient's own first-year visits (their mean, which is steadier
than the last one); the slope, points a month, is learned by gradient-boosted trees from
the patient's proteins, age, sex and first-year scores. Training patients are cut the way
test patients are (first year known, the rest to forecast).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import GroupShuffleSplit
from threadpoolctl import threadpool_limits
from visits import TARGETS, first_year, print_validation, write_submission

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)

MIDDLE_MONTH = 6  # the first-year mean sits near month 6


def patient_table(history: pd.DataFrame, proteins: pd.DataFrame,
                  patients: pd.DataFrame) -> pd.DataFrame:
    """One row a patient: first-year score means and trends, mean proteins, age, sex."""
    by_patient = history.sort_values("visit_month").groupby("patient_id")
    table = by_patient[TARGETS].mean().add_suffix(".mean")
    months = history["visit_month"] - history.groupby("patient_id")["visit_month"].transform("mean")
    for target in TARGETS:
        centred = history[target] - by_patient[target].transform("mean")
        table[f"{target}.trend"] = ((months * centred).groupby(history["patient_id"]).sum()
                                    / (months**2).groupby(history["patient_id"]).sum())
    table = table.join(proteins.drop(columns="visit_month").groupby("patient_id").mean())
    info = patients.set_index("patient_id")
    return table.join(info["age"]).assign(male=(info["sex"] == "m").astype(float))


class Forecaster:
    def __init__(self, proteins: pd.DataFrame, patients: pd.DataFrame) -> None:
        self.proteins, self.patients = proteins, patients

    def _x(self, history: pd.DataFrame, rows: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
        table = patient_table(history, self.proteins, self.patients)
        x = table.reindex(rows["patient_id"]).set_axis(rows.index)
        return x, (rows["visit_month"].to_numpy() - MIDDLE_MONTH)

    def fit(self, visits: pd.DataFrame) -> Forecaster:
        history, later = first_year(visits)
        x, months = self._x(history, later)
        self.models = {}
        for target in TARGETS:
            slope = (later[target] - x[f"{target}.mean"]) / months
            trees = GradientBoostingRegressor(n_estimators=150, learning_rate=0.05, max_depth=3,
                                              min_samples_leaf=20, random_state=0)
            # Weighted by months squared: the loss is then the squared score error.
            self.models[target] = trees.fit(x, slope, sample_weight=months**2)
        return self

    def predict(self, history: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
        x, months = self._x(history, rows)
        predicted = {t: x[f"{t}.mean"] + m.predict(x) * months for t, m in self.models.items()}
        return pd.DataFrame(predicted, index=rows.index).clip(lower=0)


def main() -> None:
    train = pd.read_csv("train.csv")
    history = pd.read_csv("test_history.csv")
    test = pd.read_csv("test.csv")
    proteins, patients = pd.read_csv("proteins.csv"), pd.read_csv("patients.csv")

    split = GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0)
    fit_rows, val_rows = next(split.split(train, groups=train["patient_id"]))
    fit, val = train.iloc[fit_rows], train.iloc[val_rows]
    print_validation(Forecaster(proteins, patients).fit(fit), val)
    write_submission(test, Forecaster(proteins, patients).fit(train).predict(history, test))


if __name__ == "__main__":
    main()
