"""Replacement scorer of MLAgentBench's fathomnet task: the competition's MAP@20 of the
categories on the held-out images, without its out-of-sample half.

The original prepare.py holds back 2% of the training images as the test set, so every
one of them is in-sample and no out-of-sample label exists to score: its eval.py draws
one per image at random on every call, which makes half of its metric noise. The MAP@20
is computed as the competition defines it: at most 20 categories are ranked, and a
category counts once, at its first rank.

A ``categories`` cell is read as integer codes, in any of the forms they come in: the
documented space-separated list (``150 159``), and the Python list the starter writes
(``[150, 159]``) and the prepared answer.csv keeps from the training set
(``[150.0, 159.0]``). Compared as words, as the original's metric.py does, no answer
matches any submission and every score is 0. A cell that is not such a list makes the
submission invalid.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from pytest_mlab.core.errors import InvalidSubmission, ScorerError

K = 20
SUBMISSION = "submission.csv"
ANSWERS = Path("scripts") / "answer.csv"
MAX_BYTES = 4 << 20
"""The held-out set is about 120 images: its submission takes a few kilobytes."""
MAX_FIELDS = 1000
# pandas takes minutes over one line of millions of commas, so such a file is refused
# before it is parsed.


def average_precision(actual: list[int], predicted: list[int], k: int = K) -> float:
    """AP@k of one image: precision at each rank that finds a new true category."""
    if not actual:
        return 0.0
    truth, found, total = set(actual), set(), 0.0
    for rank, category in enumerate(predicted[:k], start=1):
        if category in truth and category not in found:
            found.add(category)
            total += len(found) / rank
    return total / min(len(actual), k)


_SEPARATORS = re.compile(r"[\s,]+")


def parse_categories(cell: str) -> list[int]:
    """The integer codes of a cell: ``150 159``, ``[150, 159]`` or ``[150.0, 159.0]``;
    ``ValueError`` for anything else."""
    text = cell.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    codes = []
    for word in _SEPARATORS.split(text.strip(" ,")):
        if not word:
            continue
        number = float(word)
        if not number.is_integer():
            raise ValueError(f"{word!r} is not an integer")
        codes.append(int(number))
    return codes


def _column(frame: pd.DataFrame, file: str) -> dict[str, list[int]]:
    """Each id's categories; the first cell that is no list of integers is named."""
    categories = {}
    for row, (image, cell) in enumerate(zip(frame["id"], frame["categories"], strict=True),
                                        start=2):
        try:
            categories[image] = parse_categories(cell)
        except ValueError:
            raise ValueError(f"{file} line {row} (id {image}): the categories {cell[:100]!r} "
                             "are not a list of integer codes") from None
    return categories


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
    try:
        truths = _column(answers, str(ANSWERS))
    except ValueError as error:
        raise ScorerError(f"the prepared {error}.") from None
    try:
        predicted = _column(frame, SUBMISSION)
    except ValueError as error:
        raise InvalidSubmission(f"{error}.") from None
    scores = [average_precision(truth, predicted[image]) for image, truth in truths.items()]
    return sum(scores) / len(scores)
