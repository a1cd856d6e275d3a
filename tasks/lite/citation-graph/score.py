"""Score a citation-graph submission by accuracy on the hidden test papers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import InvalidSubmission

COLUMNS = ["node_id", "label"]
# Must match N_CLASSES in prepare.py.
N_CLASSES = 20


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="node_id")["label"]
    submission = _read_submission(workspace / "submission.csv")

    ids = submission["node_id"]
    if ids.duplicated().any():
        raise InvalidSubmission(f"submission.csv repeats node_id {ids[ids.duplicated()].iloc[0]}.")
    unknown = ids[~ids.isin(answers.index)]
    if len(unknown):
        raise InvalidSubmission(
            f"submission.csv has node_id {unknown.iloc[0]}, which is not a test paper."
        )
    missing = answers.index.difference(ids)
    if len(missing):
        raise InvalidSubmission(
            f"submission.csv lacks {len(missing)} test papers, e.g. node_id {missing[0]}."
        )

    predicted = submission.set_index("node_id")["label"].reindex(answers.index)
    return float(np.mean(predicted.to_numpy() == answers.to_numpy()))


def _integers(column: pd.Series) -> pd.Series | None:
    """The column as int64, or None if any value is missing or not a whole number."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(values).all() or (values != np.round(values)).any():
        return None
    return pd.Series(values.astype("int64"), index=column.index)


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

    ids = _integers(frame["node_id"])
    if ids is None:
        raise InvalidSubmission("submission.csv has a node_id that is missing or not an integer.")
    labels = _integers(frame["label"])
    if labels is None:
        raise InvalidSubmission("submission.csv has a label that is missing or not an integer.")
    if ((labels < 0) | (labels >= N_CLASSES)).any():
        bad = labels[(labels < 0) | (labels >= N_CLASSES)].iloc[0]
        raise InvalidSubmission(
            f"submission.csv has label {bad}; labels are integers from 0 to {N_CLASSES - 1}."
        )
    return pd.DataFrame({"node_id": ids, "label": labels})
