"""Score a Fashion-MNIST submission by classification accuracy against the hidden labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import InvalidSubmission

COLUMNS = ["id", "label"]
N_CLASSES = 10


def score(workspace: Path, private: Path) -> float:
    with np.load(private / "answers.npz") as answers:
        truth = pd.Series(answers["labels"].astype("int64"), index=answers["ids"])
    submission = _read_submission(workspace / "submission.csv")

    ids = submission["id"]
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

    predicted = submission.set_index("id")["label"].reindex(truth.index)
    return float(np.mean(predicted.to_numpy() == truth.to_numpy()))


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

    columns = {}
    for column in COLUMNS:
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(values).all() or (values != np.round(values)).any():
            raise InvalidSubmission(
                f"submission.csv has a {column} that is missing or not an integer."
            )
        columns[column] = values.astype("int64")
    labels = columns["label"]
    if ((labels < 0) | (labels >= N_CLASSES)).any():
        raise InvalidSubmission(
            f"submission.csv has label {labels[(labels < 0) | (labels >= N_CLASSES)][0]}, "
            f"not a class number from 0 to {N_CLASSES - 1}."
        )
    return pd.DataFrame(columns)
