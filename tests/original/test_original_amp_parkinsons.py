"""The replacement scorer of amp-parkinsons-disease-progression-prediction: the
competition's SMAPE+1 with each rating joined to its answer by prediction_id, not paired
by position as the original eval.py does (issue 41)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.core.module_file import load_file
from pytest_mlab.taskkit.original import score as original_score

OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"
OVERLAY = OVERLAYS / "amp-parkinsons-disease-progression-prediction.toml"
SCORER = OVERLAYS / "scorers" / "amp_parkinsons.py"
Score = Callable[[str | bytes], float]

# As the original prepare.py orders them: by months ahead, then UPDRS part, then visit.
ANSWERS = """\
prediction_id,rating,visit_month
55_0_updrs_1_plus_0_months,10.0,0
55_6_updrs_1_plus_0_months,0.0,6
55_0_updrs_2_plus_0_months,6.0,0
55_0_updrs_1_plus_6_months,0.0,0
"""

# As the starter's MockApi writes them: visit month by visit month, another order.
PERFECT = """\
visit_month,prediction_id,rating
0,55_0_updrs_1_plus_0_months,10
0,55_0_updrs_2_plus_0_months,6
0,55_0_updrs_1_plus_6_months,0
6,55_6_updrs_1_plus_0_months,0
"""

# The original eval.py's way, written here: SMAPE+1 of the two files paired row by row.
BY_POSITION = """\
import os

import pandas as pd


def get_score(submission_folder="../env"):
    answer = pd.read_csv(os.path.join(os.path.dirname(__file__), "answer.csv"))
    submission = pd.read_csv(os.path.join(submission_folder, "submission.csv"))
    y, p = answer["rating"] + 1, submission["rating"] + 1
    return float((abs(p - y) / ((y + p) / 2)).mean() * 100)
"""


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "private" / "scripts").mkdir(parents=True)
    (tmp_path / "private" / "scripts" / "answer.csv").write_text(ANSWERS)
    (tmp_path / "private" / "scripts" / "eval.py").write_text(BY_POSITION)
    (tmp_path / "public").mkdir()
    (tmp_path / "submission").mkdir()
    return tmp_path / "submission", tmp_path / "private"


@pytest.fixture
def score(folders: tuple[Path, Path]) -> Score:
    submission, private = folders
    module = load_file(SCORER, "amp_parkinsons_scorer")

    def run(text: str | bytes) -> float:
        path = submission / "submission.csv"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        value: float = module.score(submission, private, None)
        return value

    return run


@pytest.mark.parametrize(("truth", "predicted", "expected"), [
    ([0.0], [0.0], 0.0),
    ([1.0], [3.0], 100 * 2 / 3),  # |4 - 2| over the mean of 2 and 4
    ([0.0], [1.0], 100 * 1 / 1.5),
    ([0.0, 5.0], [0.0, 5.0], 0.0),
    ([0.0, 1.0], [1.0, 3.0], 100 * (1 / 1.5 + 2 / 3) / 2),
    ([0.0], [1e12], pytest.approx(200.0)),  # the worst is 200
])
def test_smape_plus_one_as_the_competition_defines_it(
    truth: list[float], predicted: list[float], expected: float,
) -> None:
    scorer = load_file(SCORER, "amp_parkinsons_scorer")
    assert scorer.smape_plus_one(truth, predicted) == pytest.approx(expected)


def test_the_overlay_scores_each_rating_against_the_answer_of_its_id(
    folders: tuple[Path, Path],
) -> None:
    submission, private = folders
    (submission / "submission.csv").write_text(PERFECT)
    # Paired by position, the perfect predictions would meet other ids' answers.
    assert original_score(OVERLAY, submission, private, None) == 0.0
    one_off = PERFECT.replace("0,55_0_updrs_1_plus_6_months,0", "0,55_0_updrs_1_plus_6_months,1")
    expected = 100 * (1 / 1.5) / 4
    (submission / "submission.csv").write_text(one_off)
    assert original_score(OVERLAY, submission, private, None) == pytest.approx(expected)


def test_the_other_columns_and_the_order_of_rows_are_not_read(score: Score) -> None:
    rows = PERFECT.splitlines()
    reordered = "\n".join(["prediction_id,rating", *(",".join(row.split(",")[1:])
                                                      for row in reversed(rows[1:]))]) + "\n"
    assert score(reordered) == 0.0
    assert score(PERFECT.replace("0,55_0_updrs_2_plus_0_months,6",
                                 "0,55_0_updrs_2_plus_0_months,6.0")) == 0.0


@pytest.mark.parametrize(("text", "sentence"), [
    (PERFECT.replace(",rating", ",score"), "submission.csv lacks the column(s) rating."),
    (PERFECT + "6,55_6_updrs_1_plus_0_months,1\n",
     "submission.csv repeats prediction_id 55_6_updrs_1_plus_0_months."),
    (PERFECT + "0,55_0_updrs_4_plus_0_months,1\n",
     "submission.csv has prediction_id 55_0_updrs_4_plus_0_months, which is not a held-out "
     "prediction."),
    ("\n".join(PERFECT.splitlines()[:3]) + "\n",
     "submission.csv lacks 2 held-out predictions, e.g. prediction_id "
     "55_6_updrs_1_plus_0_months."),
    (PERFECT.replace("updrs_2_plus_0_months,6", "updrs_2_plus_0_months,nan"),
     "submission.csv has rating 'nan' for prediction_id 55_0_updrs_2_plus_0_months, which "
     "is not a finite number."),
    (PERFECT.replace("updrs_2_plus_0_months,6", "updrs_2_plus_0_months,"),
     "submission.csv has rating '' for prediction_id 55_0_updrs_2_plus_0_months"),
    (PERFECT.replace("updrs_2_plus_0_months,6", "updrs_2_plus_0_months,inf"),
     "submission.csv has rating 'inf' for prediction_id 55_0_updrs_2_plus_0_months"),
    (PERFECT.replace("updrs_2_plus_0_months,6", "updrs_2_plus_0_months,six"),
     "submission.csv has rating 'six' for prediction_id 55_0_updrs_2_plus_0_months"),
    (PERFECT.replace("updrs_2_plus_0_months,6", "updrs_2_plus_0_months,-2"),
     "submission.csv has rating -2 for prediction_id 55_0_updrs_2_plus_0_months: UPDRS "
     "ratings are not negative."),
    ("", "submission.csv is not a readable CSV file"),
    (b"prediction_id,rating\n" + b"," * 5000 + b"\n", "submission.csv has a line of more"),
    (b"prediction_id,rating\n" + b"x" * (5 << 20), "submission.csv is larger than 4 MB."),
])
def test_a_malformed_submission_is_invalid_in_one_sentence(
    score: Score, text: str | bytes, sentence: str,
) -> None:
    with pytest.raises(InvalidSubmission) as caught:
        score(text)
    assert str(caught.value).startswith(sentence)


def test_a_missing_submission_is_invalid(folders: tuple[Path, Path]) -> None:
    submission, private = folders
    with pytest.raises(InvalidSubmission, match=r"No submission\.csv was written"):
        load_file(SCORER, "amp_parkinsons_scorer").score(submission, private, None)
