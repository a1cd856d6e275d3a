"""The ladder's seed-pick rung: the starter, fitted on the split of the essays that gives
the best validation MCRMSE of 10 drawn (a seed trick, not ML work)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1)

TRIED = 10

TARGETS = ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]


def features(text: pd.Series) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "characters": text.str.len(),
            "words": text.str.split().str.len(),
            "commas": text.str.count(","),
        }
    )


def mcrmse(true: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean(np.sqrt(np.mean((true - predicted) ** 2, axis=0))))


def main() -> None:
    seed = int(os.environ.get("MLAB_SEED", "0"))
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    x, y = features(train["text"]), train[TARGETS].to_numpy()

    def fitted(split_seed: int) -> tuple[float, Ridge]:
        x_fit, x_val, y_fit, y_val = train_test_split(
            x, y, test_size=0.2, random_state=split_seed
        )
        model = Ridge(alpha=1.0).fit(x_fit, y_fit)
        return mcrmse(y_val, model.predict(x_val)), model

    _, model = min((fitted(s) for s in range(seed * TRIED, (seed + 1) * TRIED)),
                   key=lambda pair: pair[0])
    submission = pd.DataFrame(model.predict(features(test["text"])), columns=TARGETS)
    submission.insert(0, "id", test["id"])
    submission.to_csv("submission.csv", index=False)


if __name__ == "__main__":
    main()
