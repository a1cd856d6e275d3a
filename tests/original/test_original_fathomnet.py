"""The replacement scorer of fathomnet: the competition's MAP@20 of the categories, the
same on every call, and one sentence for each malformed submission."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.core.errors import InvalidSubmission, ScorerError
from pytest_mlab.core.module_file import load_file

SCORER = Path(__file__).resolve().parents[2] / "tasks/mlagentbench/scorers/fathomnet.py"
Score = Callable[[str | bytes], float]
# As the original prepare.py writes them: the training set's Python lists of floats.
ANSWERS = 'id,categories\nimg-a,"[1.0, 7.0]"\nimg-b,[3.0]\nimg-c,"[12.0, 4.0, 9.0]"\n'


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
    ([1], [1, 2], 1.0),
    ([1], [2, 1], 0.5),
    ([1, 7], [7, 5, 1], (1 / 1 + 2 / 3) / 2),
    ([1], [1, 1, 1], 1.0),  # a category counts once, at its first rank
    ([1, 2], [3] * 20 + [1], 0.0),  # only 20 ranks count
    ([], [1], 0.0),
    ([1], [], 0.0),
])
def test_average_precision_as_the_competition_defines_it(
    actual: list[int], predicted: list[int], expected: float,
) -> None:
    scorer = load_file(SCORER, "fathomnet_scorer")
    assert scorer.average_precision(actual, predicted) == pytest.approx(expected)


def test_the_score_is_the_mean_average_precision_and_the_same_every_call(score: Score) -> None:
    text = "id,categories,osd\nimg-c,4 12 9,0.9\nimg-a,7 1,0.1\nimg-b,5 3,0.5\n"
    expected = (1.0 + 0.5 + 1.0) / 3
    assert [score(text) for _ in range(3)] == [pytest.approx(expected)] * 3
    # The osd column is not scored: any values, or none, give the same figure.
    assert score("id,categories\nimg-c,4 12 9\nimg-a,7 1\nimg-b,5 3\n") == pytest.approx(expected)
    # The starter's Python lists count as the documented space-separated codes do.
    starter = 'id,categories,osd\nimg-c,"[4, 12, 9]",1\nimg-a,"[7, 1]",1\nimg-b,"[5, 3]",1\n'
    assert score(starter) == pytest.approx(expected)


def test_a_perfect_submission_in_the_documented_format_scores_one(score: Score) -> None:
    assert score("id,categories,osd\nimg-a,1 7,0.1\nimg-b,3,0.9\nimg-c,12 4 9,0.5\n") == 1.0
    # An image with no category predicted scores 0 for that image, and is not invalid.
    assert score('id,categories\nimg-a,1 7\nimg-b,[]\nimg-c,""\n') == pytest.approx(1 / 3)


@pytest.mark.parametrize(("cell", "codes"), [
    ("150 159", [150, 159]),
    ("[150, 159]", [150, 159]),
    ("[150.0, 159.0]", [150, 159]),
    (" 3  1 ", [3, 1]),
    ("[150 159]", [150, 159]),
    ("[]", []),
    ("", []),
])
def test_categories_are_integer_codes_in_every_form_they_come_in(
    cell: str, codes: list[int],
) -> None:
    assert load_file(SCORER, "fathomnet_scorer").parse_categories(cell) == codes


@pytest.mark.parametrize("cell", ["cat dog", "1.5 2", "nan", "[1, [2]]", "{1}"])
def test_a_cell_of_anything_but_integer_codes_is_invalid_naming_its_row(
    score: Score, cell: str,
) -> None:
    with pytest.raises(InvalidSubmission) as caught:
        score(f'id,categories\nimg-a,1\nimg-b,"{cell}"\nimg-c,4\n')
    assert str(caught.value).startswith(
        f"submission.csv line 3 (id img-b): the categories {cell!r} are not a list of "
        "integer codes")


def test_an_answer_that_is_no_list_of_codes_is_the_harness_s_fault(tmp_path: Path) -> None:
    (tmp_path / "private" / "scripts").mkdir(parents=True)
    (tmp_path / "private" / "scripts" / "answer.csv").write_text("id,categories\nimg-a,x\n")
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "submission.csv").write_text("id,categories\nimg-a,1\n")
    with pytest.raises(ScorerError, match=r"the prepared scripts/answer\.csv line 2 \(id img-a\)"):
        load_file(SCORER, "fathomnet_scorer").score(tmp_path / "submission",
                                                    tmp_path / "private", None)


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
