"""No model: the share of survivors among the 25 most similar training passengers
(class, sex, age, relatives; standardised, unknown ages at the median)."""

import numpy as np
import pandas as pd

K = 25
train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")


def columns(frame: pd.DataFrame) -> pd.DataFrame:
    x = frame[["Pclass", "Age", "SibSp", "Parch"]].assign(Female=frame["Sex"] == "female")
    return x.astype(float).fillna({"Age": train["Age"].median()})


a, b = columns(train), columns(test)
mean, scale = a.mean(), a.std()
a, b = ((a - mean) / scale).to_numpy(), ((b - mean) / scale).to_numpy()
distance = (b**2).sum(1)[:, None] - 2 * b @ a.T + (a**2).sum(1)[None, :]
nearest = np.argsort(distance, axis=1, kind="stable")[:, :K]
rate = train["Survived"].to_numpy()[nearest].mean(axis=1)
pd.DataFrame({"PassengerId": test["PassengerId"], "Survived": rate}).to_csv(
    "submission.csv", index=False
)
