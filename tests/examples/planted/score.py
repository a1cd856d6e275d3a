from __future__ import annotations

from pathlib import Path

from pytest_mlab import InvalidSubmission


def _table(path: Path) -> dict[int, float]:
    try:
        lines = path.read_text().split()
        return {int(i): float(v) for i, v in (line.split(",") for line in lines[1:])}
    except (OSError, ValueError) as exc:
        raise InvalidSubmission(f"submission.csv cannot be read as id,value rows: {exc}") from None


def score(workspace: Path, private: Path) -> float:
    """The mean absolute error, plus one (so that the baseline is never zero)."""
    truth = _table(private / "answers.csv")
    guess = _table(workspace / "submission.csv")
    if guess.keys() != truth.keys():
        raise InvalidSubmission("submission.csv must hold one row for every id of test.csv")
    return 1.0 + sum(abs(guess[i] - truth[i]) for i in truth) / len(truth)
