"""The ladder's recipe rung: what one writes for any table without reading about it:
gradient-boosted trees per score on every column one can join to a visit (the month, the
patient's age, sex and mean proteins, and their first-year scores: mean and last)."""

from __future__ import annotations

import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from threadpoolctl import threadpool_limits
from visits import TARGETS, first_year, write_submission

threadpool_limits(limits=1)


def columns(history: pd.DataFrame, rows: pd.DataFrame, proteins: pd.DataFrame,
            patients: pd.DataFrame) -> pd.DataFrame:
    by_patient = history.sort_values("visit_month").groupby("patient_id")[TARGETS]
    table = (by_patient.mean().add_suffix(".mean").join(by_patient.last().add_suffix(".last"))
             .join(proteins.drop(columns="visit_month").groupby("patient_id").mean())
             .join(patients.set_index("patient_id").assign(sex=lambda p: p["sex"] == "m")))
    x = table.reindex(rows["patient_id"]).set_axis(rows.index)
    return x.assign(visit_month=rows["visit_month"]).astype(float)


def main() -> None:
    train = pd.read_csv("train.csv")
    history = pd.read_csv("test_history.csv")
    test = pd.read_csv("test.csv")
    proteins, patients = pd.read_csv("proteins.csv"), pd.read_csv("patients.csv")
    known, later = first_year(train)
    x = columns(known, later, proteins, patients)
    x_test = columns(history, test, proteins, patients)
    predicted = pd.DataFrame({
        t: HistGradientBoostingRegressor(random_state=0).fit(x, later[t]).predict(x_test)
        for t in TARGETS
    }, index=test.index)
    write_submission(test, predicted.clip(lower=0))


if __name__ == "__main__":
    main()
