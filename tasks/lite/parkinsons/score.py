"""Score a forecast of four laboratory values by SMAPE (0-200) against the hidden answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import InvalidSubmission

TARGETS = ["bili", "albumin", "ast", "protime"]
COLUMNS = ["Id", *TARGETS]


def smape(actual: np.ndarray, predicted: np.ndarray) -> float:
    """Symmetric mean absolute percentage error in percent; a pair of zeros counts 0."""
    denominator = np.abs(actual) + np.abs(predicted)
    ratio = np.divide(
        2 * np.abs(predicted - actual),
        denominator,
        out=np.zeros_like(denominator),
        where=denominator > 0,
    )
    return float(100 * np.mean(ratio))


def score(workspace: Path, private: Path) -> float:
    answers = pd.read_csv(private / "answers.csv", index_col="Id")[TARGETS]
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

    predicted = submission.set_index("Id")[TARGETS].reindex(answers.index)
    return smape(answers.to_numpy(dtype=float).ravel(), predicted.to_numpy(dtype=float).ravel())


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

    ids = pd.to_numeric(frame["Id"], errors="coerce")
    finite = np.isfinite(ids.to_numpy(dtype=float))
    if not finite.all() or (ids != ids.round()).any():
        raise InvalidSubmission("submission.csv has an Id that is missing or not an integer.")
    clean = pd.DataFrame({"Id": ids.astype("int64")})
    for target in TARGETS:
        values = pd.to_numeric(frame[target], errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(values).all() or (values < 0).any():
            raise InvalidSubmission(
                f"submission.csv has a {target} value that is missing, negative or not finite."
            )
        clean[target] = values
    return clean
