from __future__ import annotations

from pathlib import Path

from pytest_mlab import InvalidSubmission


def score(workspace: Path, private: Path) -> float:
    submission = workspace / "submission.txt"
    if not submission.is_file():
        raise InvalidSubmission("submission.txt is missing")
    try:
        guess = float(submission.read_text())
    except ValueError:
        raise InvalidSubmission("submission.txt does not hold a number") from None
    answer = float((private / "answer.txt").read_text())
    return abs(guess - answer) + 1.0
