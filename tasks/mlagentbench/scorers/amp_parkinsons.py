"""Replacement scorer of MLAgentBench's amp-parkinsons-disease-progression-prediction
task: the competition's SMAPE+1 of each held-out rating against the prediction of the
same ``prediction_id``.

The original eval.py pairs answer.csv and submission.csv row by row, but the two are in
different orders: prepare.py writes the answers by months ahead, then UPDRS part, then
visit, and the starter's MockApi writes the predictions visit month by visit month, so
on synthetic data the ids of the two agreed at 0.7% of positions and the score compared
mismatched pairs. Here the rows are joined on ``prediction_id``; every held-out id needs
exactly one finite, non-negative rating (the original's metric refuses negative ones
too), and the other columns (``visit_month``) are not read.

SMAPE+1 is the symmetric mean absolute percentage error of ``y + 1`` against
``prediction + 1``, in percent: 0 is perfect and 200 the worst, and the +1 keeps a zero
rating from dividing by zero.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from pytest_mlab.core.errors import InvalidSubmission, ScorerError

SUBMISSION = "submission.csv"
ANSWERS = Path("scripts") / "answer.csv"
MAX_BYTES = 4 << 20
"""Two held-out patients make a few hundred predictions: a few kilobytes."""
MAX_FIELDS = 1000
# pandas takes minutes over one line of millions of commas, so such a file is refused
# before it is parsed.


def smape_plus_one(truth: list[float], predicted: list[float]) -> float:
    """SMAPE of (y + 1) against (prediction + 1), in percent, over paired ratings."""
    terms = []
    for y, p in zip(truth, predicted, strict=True):
        actual, forecast = y + 1, p + 1
        scale = (abs(actual) + abs(forecast)) / 2
        terms.append(0.0 if scale == 0 else abs(forecast - actual) / scale)
    return 100 * sum(terms) / len(terms)


def _read_submission(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise InvalidSubmission(f"No {SUBMISSION} was written to the workspace root.")
    if path.stat().st_size > MAX_BYTES:
        raise InvalidSubmission(f"{SUBMISSION} is larger than {MAX_BYTES >> 20} MB.")
    if any(line.count(b",") >= MAX_FIELDS for line in path.read_bytes().splitlines()):
        raise InvalidSubmission(f"{SUBMISSION} has a line of more than {MAX_FIELDS} fields.")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (ValueError, OverflowError, MemoryError) as error:
        raise InvalidSubmission(f"{SUBMISSION} is not a readable CSV file ({error}).") from None
    absent = [column for column in ("prediction_id", "rating") if column not in frame.columns]
    if absent:
        raise InvalidSubmission(f"{SUBMISSION} lacks the column(s) {', '.join(absent)}.")
    return frame


def _rating(cell: str, identifier: str) -> float:
    try:
        value = float(cell)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InvalidSubmission(f"{SUBMISSION} has rating {cell[:100]!r} for prediction_id "
                                f"{identifier}, which is not a finite number.")
    if value < 0:
        raise InvalidSubmission(f"{SUBMISSION} has rating {cell[:100]} for prediction_id "
                                f"{identifier}: UPDRS ratings are not negative.")
    return value


def _answers(private: Path) -> dict[str, float]:
    """The held-out ratings by id."""
    path = private / ANSWERS
    frame = pd.read_csv(path, dtype={"prediction_id": str})
    if frame["prediction_id"].duplicated().any():
        raise ScorerError(f"the prepared {ANSWERS} repeats a prediction_id.")
    return {identifier: float(rating)
            for identifier, rating in zip(frame["prediction_id"], frame["rating"], strict=True)}


def score(submission: Path, private: Path, runner: Any) -> float:
    """SMAPE+1 over the held-out ratings, each against the prediction of its id."""
    answers = _answers(private)
    frame = _read_submission(submission / SUBMISSION)
    ids = frame["prediction_id"]
    if ids.duplicated().any():
        raise InvalidSubmission(f"{SUBMISSION} repeats prediction_id "
                                f"{ids[ids.duplicated()].iloc[0]}.")
    unknown = [identifier for identifier in ids if identifier not in answers]
    if unknown:
        raise InvalidSubmission(f"{SUBMISSION} has prediction_id {unknown[0]}, which is not "
                                "a held-out prediction.")
    given = set(ids)
    missing = [identifier for identifier in answers if identifier not in given]
    if missing:
        raise InvalidSubmission(f"{SUBMISSION} lacks {len(missing)} held-out predictions, "
                                f"e.g. prediction_id {missing[0]}.")
    predicted = {identifier: _rating(cell, identifier)
                 for identifier, cell in zip(ids, frame["rating"], strict=True)}
    # As the original metric, an answer that is not finite (a visit that did not take
    # place; prepare.py writes none) is skipped.
    scored = [identifier for identifier, rating in answers.items() if math.isfinite(rating)]
    if not scored:
        raise ScorerError(f"the prepared {ANSWERS} has no finite rating to score.")
    return smape_plus_one([answers[i] for i in scored], [predicted[i] for i in scored])
