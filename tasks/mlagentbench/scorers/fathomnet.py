"""Replacement scorer of MLAgentBench's fathomnet task: the competition's MAP@20 of the
categories on the held-out images, without its out-of-sample half.

The original prepare.py holds back 2% of the training images as the test set, so every
one of them is in-sample and no out-of-sample label exists to score: its eval.py draws
one per image at random on every call, which makes half of its metric noise. The MAP@20
is computed as the competition defines it: categories are the space-separated words of
the ``categories`` cell, at most 20 are ranked, and a category counts once, at its
first rank.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from pytest_mlab.core.errors import InvalidSubmission

K = 20
SUBMISSION = "submission.csv"
ANSWERS = Path("scripts") / "answer.csv"
MAX_BYTES = 4 << 20
"""The held-out set is about 120 images: its submission takes a few kilobytes."""
MAX_FIELDS = 1000
# pandas takes minutes over one line of millions of commas, so such a file is refused
# before it is parsed.


def average_precision(actual: list[str], predicted: list[str], k: int = K) -> float:
    """AP@k of one image: precision at each rank that finds a new true category."""
    if not actual:
        return 0.0
    truth, found, total = set(actual), set(), 0.0
    for rank, category in enumerate(predicted[:k], start=1):
        if category in truth and category not in found:
            found.add(category)
            total += len(found) / rank
    return total / min(len(actual), k)


def _categories(cell: object) -> list[str]:
    return str(cell).split() if isinstance(cell, str) else []


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
    absent = [column for column in ("id", "categories") if column not in frame.columns]
    if absent:
        raise InvalidSubmission(f"{SUBMISSION} lacks the column(s) {', '.join(absent)}.")
    return frame


def score(submission: Path, private: Path, runner: Any) -> float:
    """Mean AP@20 over the held-out images; every one needs exactly one row."""
    answers = pd.read_csv(private / ANSWERS, dtype=str, keep_default_na=False)
    frame = _read_submission(submission / SUBMISSION)
    ids = frame["id"]
    if ids.duplicated().any():
        raise InvalidSubmission(f"{SUBMISSION} repeats id {ids[ids.duplicated()].iloc[0]}.")
    unknown = ids[~ids.isin(answers["id"])]
    if len(unknown):
        raise InvalidSubmission(f"{SUBMISSION} has id {unknown.iloc[0]}, which is not a "
                                "held-out image.")
    missing = answers["id"][~answers["id"].isin(ids)]
    if len(missing):
        raise InvalidSubmission(f"{SUBMISSION} lacks {len(missing)} held-out images, e.g. "
                                f"id {missing.iloc[0]}.")
    predicted = dict(zip(ids, frame["categories"], strict=True))
    scores = [average_precision(_categories(truth), _categories(predicted[image]))
              for image, truth in zip(answers["id"], answers["categories"], strict=True)]
    return sum(scores) / len(scores)
