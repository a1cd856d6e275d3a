"""Score a citation-graph submission by accuracy on the hidden test papers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.taskkit.submission import read_csv_submission

# Must match N_CLASSES in prepare.py.
N_CLASSES = 20


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="node_id")["label"]
    submission = read_csv_submission(workspace / "submission.csv", "node_id", ["label"])
    labels = submission.class_numbers("label", N_CLASSES)
    predicted = submission.in_answer_order(
        labels, answers.index, listed="a test paper", rows="test papers"
    )
    return float(np.mean(predicted == answers.to_numpy()))
