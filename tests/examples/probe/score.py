"""Call train.py's check() in the scoring sandbox, as timing tasks do, then score
submission.csv by mean absolute error against the private answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import InvalidSubmission
from pytest_mlab.taskkit.submission import read_csv_submission
from pytest_mlab.taskkit.timed_child import ChildProgram, Runner, start_timed_child

ADAPTER = 'def call(fn, inputs, context):\n    return fn(inputs["x"])\n'
PROGRAM = ChildProgram(function="check", adapter=ADAPTER)


def score(submission: Path, private: Path, runner: Runner) -> float:
    with start_timed_child(submission, runner, PROGRAM, 90.0) as child:
        child.wait_until_ready(60.0)
        _, out = child.call({"x": np.arange(3.0)}, "check", 60.0)
    if out.tolist() != [0.0, 1.0, 2.0]:
        raise InvalidSubmission("check(x) did not return x.")
    answers = pd.read_csv(private / "answers.csv", index_col="id")["value"]
    csv = read_csv_submission(submission / "submission.csv", "id", ["value"])
    values = csv.finite_numbers(["value"])[:, 0]
    predicted = csv.in_answer_order(values, answers.index)
    return float(np.mean(np.abs(predicted - answers.to_numpy())))
