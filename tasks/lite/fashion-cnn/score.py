"""Score a Fashion-MNIST submission by its error rate (the share of test images classified
wrongly) against the hidden labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.taskkit.submission import read_csv_submission

N_CLASSES = 10


def score(workspace: Path, private: Path) -> float:
    with np.load(private / "answers.npz") as answers:
        truth = pd.Series(answers["labels"].astype("int64"), index=answers["ids"])
    submission = read_csv_submission(workspace / "submission.csv", "id", ["label"])
    labels = submission.class_numbers("label", N_CLASSES)
    predicted = submission.in_answer_order(labels, truth.index, listed="in test.npz")
    return float(np.mean(predicted != truth.to_numpy()))
