"""The ladder's seed-pick rung: the starter, with the model's seed that gives the best
validation log-loss skill of 10 tried (a seed trick, not ML work)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from submission import write_submission
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1)

FEATURES = ["Pclass", "Female", "Age", "SibSp", "Parch"]
TRIED = 10


def features(frame: pd.DataFrame, median_age: float) -> pd.DataFrame:
    x = frame.assign(Female=(frame["Sex"] == "female").astype(int))[FEATURES]
    # Age is unrecorded for about a fifth of the passengers.
    return x.fillna({"Age": median_age})


def skill(outcome: pd.Series, probability: np.ndarray) -> float:
    """The task's metric: 1 - log loss / log loss of the base rate alone."""
    knows_nothing = log_loss(outcome, np.full(len(outcome), outcome.mean()))
    return 1 - log_loss(outcome, probability) / knows_nothing


def model(seed: int) -> GradientBoostingClassifier:
    return GradientBoostingClassifier(
        n_estimators=100, max_depth=3, subsample=0.8, random_state=seed
    )


def main() -> None:
    seed = int(os.environ.get("MLAB_SEED", "0"))
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    median_age = train["Age"].median()
    x, survived = features(train, median_age), train["Survived"]

    x_fit, x_val, y_fit, y_val = train_test_split(x, survived, test_size=0.2, random_state=seed)

    def validation_skill(model_seed: int) -> float:
        held_out = model(model_seed).fit(x_fit, y_fit)
        return skill(y_val, held_out.predict_proba(x_val)[:, 1])

    best = max(range(seed * TRIED, (seed + 1) * TRIED), key=validation_skill)
    final = model(best).fit(x, survived)
    probability = final.predict_proba(features(test, median_age))[:, 1]
    write_submission(test, probability)


if __name__ == "__main__":
    main()
