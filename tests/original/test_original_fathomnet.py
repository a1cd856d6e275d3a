"""The replacement scorer of fathomnet: the competition's MAP@20 of the categories, the
same on every call, and one sentence for each malformed submission."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.core.module_file import load_file

SCORER = Path(__file__).resolve().parents[2] / "tasks/mlagentbench/scorers/fathomnet.py"
Score = Callable[[str | bytes], float]
ANSWERS = "id,categories\nimg-a,1 7\nimg-b,3\nimg-c,12 4 9\n"


@pytest.fixture
def score(tmp_path: Path) -> Score:
    (tmp_path / "private" / "scripts").mkdir(parents=True)
    (tmp_path / "private" / "scripts" / "answer.csv").write_text(ANSWERS)
    (tmp_path / "submission").mkdir()
    module = load_file(SCORER, "fathomnet_scorer")

    def run(text: str | bytes) -> float:
        path = tmp_path / "submission" / "submission.csv"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        value: float = module.score(tmp_path / "submission", tmp_path / "private", None)
        return value

    return run


@pytest.mark.parametrize(("actual", "predicted", "expected"), [
    (["1"], ["1", "2"], 1.0),
    (["1"], ["2", "1"], 0.5),
    (["1", "7"], ["7", "5", "1"], (1 / 1 + 2 / 3) / 2),
    (["1"], ["1", "1", "1"], 1.0),  # a category counts once, at its first rank
    (["1", "2"], ["3"] * 20 + ["1"], 0.0),  # only 20 ranks count
    ([], ["1"], 0.0),
    (["1"], [], 0.0),
])
def test_average_precision_as_the_competition_defines_it(
    actual: list[str], predicted: list[str], expected: float,
) -> None:
    scorer = load_file(SCORER, "fathomnet_scorer")
    assert scorer.average_precision(actual, predicted) == pytest.approx(expected)


def test_the_score_is_the_mean_average_precision_and_the_same_every_call(score: Score) -> None:
    text = "id,categories,osd\nimg-c,4 12 9,0.9\nimg-a,7 1,0.1\nimg-b,5 3,0.5\n"
    expected = (1.0 + 0.5 + 1.0) / 3
    assert [score(text) for _ in range(3)] == [pytest.approx(expected)] * 3
    # The osd column is not scored: any values, or none, give the same figure.
    assert score("id,categories\nimg-c,4 12 9\nimg-a,7 1\nimg-b,5 3\n") == pytest.approx(expected)
    # The starter's format ("[1, 7]") is not space-separated categories, as in the original.
    assert score('id,categories,osd\nimg-a,"[1, 7]",1\nimg-b,[3],1\nimg-c,[4],1\n') == 0.0


@pytest.mark.parametrize(("text", "sentence"), [
    ("id,osd\nimg-a,1\n", "submission.csv lacks the column(s) categories."),
    ("id,categories\nimg-a,1\nimg-a,1\nimg-b,3\nimg-c,4\n", "submission.csv repeats id img-a."),
    ("id,categories\nimg-a,1\nimg-b,3\nimg-c,4\nimg-z,4\n",
     "submission.csv has id img-z, which is not a held-out image."),
    ("id,categories\nimg-a,1\n", "submission.csv lacks 2 held-out images, e.g. id img-b."),
    ("", "submission.csv is not a readable CSV file"),
    (b"id,categories\n" + b"," * 5000 + b"\n", "submission.csv has a line of more than 1000"),
    (b"id,categories\n" + b"x" * (5 << 20), "submission.csv is larger than 4 MB."),
])
def test_a_malformed_submission_is_invalid_in_one_sentence(
    score: Score, text: str | bytes, sentence: str,
) -> None:
    with pytest.raises(InvalidSubmission) as caught:
        score(text)
    assert str(caught.value).startswith(sentence)


def test_a_missing_submission_is_invalid(tmp_path: Path) -> None:
    (tmp_path / "private" / "scripts").mkdir(parents=True)
    (tmp_path / "private" / "scripts" / "answer.csv").write_text(ANSWERS)
    (tmp_path / "submission").mkdir()
    with pytest.raises(InvalidSubmission, match=r"No submission\.csv was written"):
        load_file(SCORER, "fathomnet_scorer").score(tmp_path / "submission",
                                                    tmp_path / "private", None)
