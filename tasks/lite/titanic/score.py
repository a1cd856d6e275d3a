"""Score a Titanic submission by accuracy against the hidden answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import InvalidSubmission

COLUMNS = ["PassengerId", "Survived"]


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="PassengerId")["Survived"]
    submission = _read_submission(workspace / "submission.csv")

    ids = submission["PassengerId"]
    if ids.duplicated().any():
        raise InvalidSubmission(
            f"submission.csv repeats PassengerId {ids[ids.duplicated()].iloc[0]}."
        )
    unknown = ids[~ids.isin(answers.index)]
    if len(unknown):
        raise InvalidSubmission(
            f"submission.csv has PassengerId {unknown.iloc[0]}, which is not in test.csv."
        )
    missing = answers.index.difference(ids)
    if len(missing):
        raise InvalidSubmission(
            f"submission.csv lacks {len(missing)} test PassengerId(s), e.g. {missing[0]}."
        )

    predicted = submission.set_index("PassengerId")["Survived"].reindex(answers.index)
    return float(np.mean(predicted.to_numpy() == answers.to_numpy()))


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

    ids = pd.to_numeric(frame["PassengerId"], errors="coerce")
    finite = np.isfinite(ids.to_numpy(dtype=float))
    if not finite.all() or (ids != ids.round()).any():
        raise InvalidSubmission(
            "submission.csv has a PassengerId that is missing or not an integer."
        )
    labels = pd.to_numeric(frame["Survived"], errors="coerce")
    if not labels.isin([0, 1]).all():
        raise InvalidSubmission("submission.csv has a Survived value that is not 0 or 1.")
    return pd.DataFrame({"PassengerId": ids.astype("int64"), "Survived": labels.astype("int64")})
