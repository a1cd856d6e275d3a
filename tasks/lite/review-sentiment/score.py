"""Score a review-sentiment submission: accuracy of the more probable class per review."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import InvalidSubmission

CLASSES = ["other", "great"]
COLUMNS = ["id", *CLASSES]
# Probabilities written as text may lose a little precision; more than this is an error.
SUM_TOLERANCE = 0.01


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="id")["label"]
    submission = _read_submission(workspace / "submission.csv")

    ids = submission["id"]
    if ids.duplicated().any():
        raise InvalidSubmission(f"submission.csv repeats id {ids[ids.duplicated()].iloc[0]}.")
    unknown = ids[~ids.isin(answers.index)]
    if len(unknown):
        raise InvalidSubmission(
            f"submission.csv has id {unknown.iloc[0]}, which is not in test.csv."
        )
    missing = answers.index.difference(ids)
    if len(missing):
        raise InvalidSubmission(
            f"submission.csv lacks {len(missing)} test ids, e.g. id {missing[0]}."
        )

    probabilities = submission.set_index("id")[CLASSES].reindex(answers.index)
    # A tie goes to the first class, "other".
    predicted = np.where(probabilities["great"] > probabilities["other"], "great", "other")
    return float(np.mean(predicted == answers.to_numpy()))


def _read_submission(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise InvalidSubmission("No submission.csv was written to the workspace root.")
    try:
        frame = pd.read_csv(path)
    # Parser, empty-file and decoding errors are all ValueErrors.
    except ValueError as error:
        raise InvalidSubmission(f"submission.csv is not a readable CSV file ({error}).") from error

    absent = [column for column in COLUMNS if column not in frame.columns]
    if absent:
        raise InvalidSubmission(f"submission.csv lacks the column(s) {', '.join(absent)}.")
    frame = frame[COLUMNS]

    ids = pd.to_numeric(frame["id"], errors="coerce")
    if not np.isfinite(ids.to_numpy(dtype=float)).all() or (ids != ids.round()).any():
        raise InvalidSubmission("submission.csv has an id that is missing or not an integer.")
    values = frame[CLASSES].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(values).all():
        raise InvalidSubmission(
            "submission.csv has a probability that is missing or not a finite number."
        )
    if (values < 0).any() or (values > 1).any():
        raise InvalidSubmission("submission.csv has a probability outside [0, 1].")
    if (np.abs(values.sum(axis=1) - 1) > SUM_TOLERANCE).any():
        raise InvalidSubmission(
            "submission.csv has a row whose probabilities for other and great do not sum to 1."
        )
    result = pd.DataFrame(values, columns=CLASSES)
    result.insert(0, "id", ids.astype("int64"))
    return result
