"""Score a house-price submission by mean absolute error against the hidden answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import InvalidSubmission

COLUMNS = ["Id", "price"]


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="Id")["price"]
    submission = _read_submission(workspace / "submission.csv")

    ids = submission["Id"]
    if ids.duplicated().any():
        raise InvalidSubmission(f"submission.csv repeats Id {ids[ids.duplicated()].iloc[0]}.")
    unknown = ids[~ids.isin(answers.index)]
    if len(unknown):
        raise InvalidSubmission(
            f"submission.csv has Id {unknown.iloc[0]}, which is not in test.csv."
        )
    missing = answers.index.difference(ids)
    if len(missing):
        raise InvalidSubmission(
            f"submission.csv lacks {len(missing)} test Ids, e.g. Id {missing[0]}."
        )

    predicted = submission.set_index("Id")["price"].reindex(answers.index)
    return float(np.mean(np.abs(predicted.to_numpy() - answers.to_numpy())))


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

    ids = pd.to_numeric(frame["Id"], errors="coerce")
    finite = np.isfinite(ids.to_numpy(dtype=float))
    if not finite.all() or (ids != ids.round()).any():
        raise InvalidSubmission("submission.csv has an Id that is missing or not an integer.")
    prices = pd.to_numeric(frame["price"], errors="coerce")
    if not np.isfinite(prices.to_numpy(dtype=float)).all():
        raise InvalidSubmission(
            "submission.csv has a price that is missing or not a finite number."
        )
    return pd.DataFrame({"Id": ids.astype("int64"), "price": prices.astype(float)})
