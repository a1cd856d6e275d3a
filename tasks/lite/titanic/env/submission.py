"""Writing submission.csv, shared by train.py and any other script here."""

from __future__ import annotations

import numpy as np
import pandas as pd


def write_submission(test: pd.DataFrame, survival: np.ndarray) -> None:
    """One row per test passenger: PassengerId and the probability of surviving."""
    submission = pd.DataFrame({"PassengerId": test["PassengerId"], "Survived": survival})
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")
