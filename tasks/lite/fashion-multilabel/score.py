"""Score a multi-label submission by mean average precision against the hidden label sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score

from pytest_mlab import InvalidSubmission

N_CLASSES = 10
CLASSES = [str(c) for c in range(N_CLASSES)]


def score(workspace: Path, private: Path) -> float:
    """Average precision of each class's scores, averaged over the ten classes (macro)."""
    with np.load(private / "answers.npz") as answers:
        truth = pd.DataFrame(answers["labels"], index=answers["ids"], columns=CLASSES)
    submission = _read_submission(workspace / "submission.csv")

    ids = submission.index.to_series()
    if ids.duplicated().any():
        raise InvalidSubmission(f"submission.csv repeats id {ids[ids.duplicated()].iloc[0]}.")
    unknown = ids[~ids.isin(truth.index)]
    if len(unknown):
        raise InvalidSubmission(
            f"submission.csv has id {unknown.iloc[0]}, which is not in test.npz."
        )
    missing = truth.index.difference(ids)
    if len(missing):
        raise InvalidSubmission(
            f"submission.csv lacks {len(missing)} test ids, e.g. id {missing[0]}."
        )

    predicted = submission.reindex(truth.index)
    return float(average_precision_score(truth.to_numpy(), predicted.to_numpy(), average="macro"))


def _read_submission(path: Path) -> pd.DataFrame:
    """The class-score columns, indexed by integer id."""
    if not path.is_file():
        raise InvalidSubmission("No submission.csv was written to the workspace root.")
    try:
        frame = pd.read_csv(path, dtype=str)
    # Parser, empty-file and decoding errors are all ValueErrors.
    except ValueError as error:
        raise InvalidSubmission(f"submission.csv is not a readable CSV file ({error}).") from error

    absent = [column for column in ["id", *CLASSES] if column not in frame.columns]
    if absent:
        raise InvalidSubmission(f"submission.csv lacks the column(s) {', '.join(absent)}.")

    ids = pd.to_numeric(frame["id"], errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(ids).all() or (ids != np.round(ids)).any():
        raise InvalidSubmission("submission.csv has an id that is missing or not an integer.")
    scores = frame[CLASSES].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(scores).all():
        raise InvalidSubmission(
            "submission.csv has a class score that is missing or not a finite number."
        )
    return pd.DataFrame(scores, index=pd.Index(ids.astype("int64"), name="id"), columns=CLASSES)
