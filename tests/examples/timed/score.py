from __future__ import annotations

from pathlib import Path

from pytest_mlab import InvalidSubmission


def score(workspace: Path, private: Path) -> float:
    try:
        return float((workspace / "submission.txt").read_text())
    except (OSError, ValueError):
        raise InvalidSubmission("submission.txt is missing or not a number") from None
