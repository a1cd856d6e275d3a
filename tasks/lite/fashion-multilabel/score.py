"""Score a multi-label submission by mean average precision against the hidden label sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score

from pytest_mlab.taskkit.submission import read_csv_submission

N_CLASSES = 10
CLASSES = [str(c) for c in range(N_CLASSES)]


def score(workspace: Path, private: Path) -> float:
    """Average precision of each class's scores, averaged over the ten classes (macro)."""
    with np.load(private / "answers.npz") as answers:
        truth = pd.DataFrame(answers["labels"], index=answers["ids"], columns=CLASSES)
    submission = read_csv_submission(workspace / "submission.csv", "id", CLASSES, as_text=True)
    scores = submission.finite_numbers(CLASSES, described_as="a class score")

    predicted = submission.in_answer_order(scores, truth.index, listed="in test.npz")
    return float(average_precision_score(truth.to_numpy(), predicted, average="macro"))
