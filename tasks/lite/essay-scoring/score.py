"""Score an essay-scoring submission by MCRMSE: the mean over targets of each column's RMSE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import InvalidSubmission

TARGETS = [
    "word_length",
    "vocabulary",
    "sentence_length",
    "punctuation",
    "readability",
    "archaism",
]
COLUMNS = ["id", *TARGETS]


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="id")[TARGETS]
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

    predicted = submission.set_index("id")[TARGETS].reindex(answers.index).to_numpy()
    column_rmse = np.sqrt(np.mean((predicted - answers.to_numpy()) ** 2, axis=0))
    return float(np.mean(column_rmse))


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
    values = frame[TARGETS].apply(pd.to_numeric, errors="coerce")
    bad = ~np.isfinite(values.to_numpy(dtype=float))
    if bad.any():
        column = TARGETS[int(np.argwhere(bad)[0][1])]
        raise InvalidSubmission(
            f"submission.csv has a {column} value that is missing or not a finite number."
        )
    values.insert(0, "id", ids.astype("int64"))
    return values
