"""Forecast four laboratory values at the test patients' later visits; write submission.csv.

Each patient's own early results carry most of the signal. Training patients are
cut the way test patients are (first HISTORY_DAYS days known, the rest to
predict), and a ridge regression and gradient-boosted trees learn, in log
space, how a later value follows from the early visits and the time elapsed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import GroupShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

TARGETS = ["bili", "albumin", "ast", "protime"]
OTHER_LABS = ["alk.phos", "platelet", "chol"]
SIGNS = ["ascites", "hepato", "spiders", "edema", "stage"]
HISTORY_DAYS = 450


def smape(actual: np.ndarray, predicted: np.ndarray) -> float:
    denominator = np.abs(actual) + np.abs(predicted)
    ratio = np.divide(
        2 * np.abs(predicted - actual),
        denominator,
        out=np.zeros_like(denominator),
        where=denominator > 0,
    )
    return float(100 * np.mean(ratio))


def features(history: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """One row per visit in `rows`, described by that patient's visits in `history`."""
    ordered = history.sort_values("day")
    by_patient = ordered.groupby("patient")
    logs = np.log(ordered[TARGETS + OTHER_LABS]).groupby(ordered["patient"])
    first, last, mean = by_patient.first(), by_patient.last(), logs.mean()
    per_patient = pd.DataFrame(index=first.index)
    for lab in TARGETS + OTHER_LABS:
        per_patient[f"{lab}.last"] = np.log(last[lab])
        per_patient[f"{lab}.mean"] = mean[lab]
    for lab in TARGETS:
        per_patient[f"{lab}.first"] = np.log(first[lab])
    for sign in SIGNS:
        per_patient[sign] = last[sign]
    per_patient["age"] = first["age"]
    per_patient["female"] = (first["sex"] == "f").astype(float)
    per_patient["penicillamine"] = first["penicillamine"]
    per_patient["visits"] = by_patient.size()

    x = per_patient.reindex(rows["patient"]).reset_index(drop=True)
    x["years"] = rows["day"].to_numpy() / 365.25
    x["log.years"] = np.log(x["years"])
    return x.set_axis(rows.index)


class Forecaster:
    def fit(self, visits: pd.DataFrame) -> Forecaster:
        history = visits[visits["day"] <= HISTORY_DAYS]
        later = visits[(visits["day"] > HISTORY_DAYS) & visits["patient"].isin(history["patient"])]
        x = features(history, later)
        self.models = {}
        for target in TARGETS:
            y = np.log(later[target])
            ridge = make_pipeline(
                SimpleImputer(strategy="median"),
                StandardScaler(),
                RidgeCV(alphas=np.logspace(-2, 3, 20)),
            )
            trees = HistGradientBoostingRegressor(
                max_iter=200,
                learning_rate=0.04,
                max_leaf_nodes=8,
                min_samples_leaf=20,
                random_state=0,
            )
            self.models[target] = [ridge.fit(x, y), trees.fit(x, y)]
        return self

    def predict(self, history: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
        x = features(history, rows)
        predicted = {
            target: np.exp(np.mean([model.predict(x) for model in models], axis=0))
            for target, models in self.models.items()
        }
        return pd.DataFrame(predicted, index=rows.index)


def main() -> None:
    # The data is tiny: extra OpenMP threads only add overhead, and on a busy
    # machine they stall the boosted trees for minutes.
    threadpool_limits(limits=1)
    train = pd.read_csv("train.csv")
    history = pd.read_csv("test_history.csv")
    test = pd.read_csv("test.csv")

    split = GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0)
    fit_rows, val_rows = next(split.split(train, groups=train["patient"]))
    fit, val = train.iloc[fit_rows], train.iloc[val_rows]
    val_history = val[val["day"] <= HISTORY_DAYS]
    val = val[(val["day"] > HISTORY_DAYS) & val["patient"].isin(val_history["patient"])]
    predicted = Forecaster().fit(fit).predict(val_history, val)
    print(f"Validation SMAPE: {smape(val[TARGETS].to_numpy(), predicted.to_numpy()):.2f}")

    predicted = Forecaster().fit(train).predict(history, test)
    submission = pd.concat([test[["Id"]], predicted], axis=1)
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")


if __name__ == "__main__":
    main()
