"""Predict which Titanic passengers survived and write submission.csv.

A deliberately simple starting point: a random forest on two columns, the
ticket class and the age.
"""

from __future__ import annotations

import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

FEATURES = ["Pclass", "Age"]


def main() -> None:
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    # Age is unrecorded for about a fifth of the passengers.
    median_age = train["Age"].median()
    x = train[FEATURES].fillna(median_age)
    x_test = test[FEATURES].fillna(median_age)

    x_fit, x_val, y_fit, y_val = train_test_split(
        x, train["Survived"], test_size=0.2, random_state=0
    )
    model = RandomForestClassifier(n_estimators=100, random_state=0)
    model.fit(x_fit, y_fit)
    print(f"Validation accuracy: {accuracy_score(y_val, model.predict(x_val)):.3f}")

    model.fit(x, train["Survived"])
    submission = pd.DataFrame(
        {"PassengerId": test["PassengerId"], "Survived": model.predict(x_test)}
    )
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")


if __name__ == "__main__":
    main()
