"""The shortcut of the issue: women survived, men did not (certain 1 or 0)."""

import pandas as pd

test = pd.read_csv("test.csv")
survived = (test["Sex"] == "female").astype(int)
pd.DataFrame({"PassengerId": test["PassengerId"], "Survived": survived}).to_csv(
    "submission.csv", index=False
)
