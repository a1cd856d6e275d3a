"""A task's ladder: rungs named by their heuristic folders, measured over the starter's
seeds, checked against the bar and the reference, and shown beside the bar in the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mlab.core.ladder import RUNGS, Rung, missing_rungs, rung_of
from pytest_mlab.core.results import TrialResult
from pytest_mlab.report.task_table import _ladder
from pytest_mlab.trial.ladder import check_reference_on_top, check_short_of_bar, climb


def _result(score: float | None, seed: int) -> TrialResult:
    return TrialResult(nodeid="t", task="t", agent="oracle", llm=None, trial=seed,
                       metric="mae", direction="lower", outcome="failed", success=False,
                       threshold=0.1, score=score, seed=seed, seconds=1.0,
                       message="no submission" if score is None else "")


def test_a_folder_is_a_rung_by_its_name_and_a_ladder_has_every_rung() -> None:
    assert rung_of("one-line") == "one-line" and rung_of("nearest-neighbour") is None
    assert missing_rungs(["nearest-neighbour"]) == []  # no ladder: nothing missing
    assert missing_rungs(["one-line", "recipe", "median"]) == ["seed-pick", "one-number"]
    assert missing_rungs(list(RUNGS)) == []


def test_climbing_measures_each_rung_over_the_seeds_and_says_which_run_failed() -> None:
    folders = [Path("h/one-line"), Path("h/median-price")]
    scores = {"one-line": [90.0, 92.0, None]}
    problems: list[str] = []
    ladder = climb(folders, lambda f: [_result(s, k) for k, s in enumerate(scores[f.name])],
                   100.0, "lower", problems)
    assert list(ladder) == ["one-line"]  # a cheap heuristic is no rung
    rung = ladder["one-line"]
    assert (rung.mean, rung.gain) == (91.0, pytest.approx(0.09))
    assert rung.gain_sd == pytest.approx(2 ** 0.5 / 100)
    assert problems == ["the one-line rung has no valid score with seed 2: no submission"]


@pytest.mark.parametrize(("scores", "fails"), [
    ([95.0, 95.1, 94.9], False),  # 5% short of a 10% bar, far beyond 3 sd
    ([91.0, 91.1, 90.9], True),   # 9% gain: within 3 starter sd (1%) of the bar
    ([95.0, 99.0, 88.0], True),   # short on average, but one seed clears the bar
])
def test_a_small_change_must_fall_short_of_the_bar_by_its_noise(
    scores: list[float], fails: bool
) -> None:
    ladder = {"one-line": Rung("one-line", list(scores)).measure(100.0, "lower")}
    problems = check_short_of_bar(ladder, 0.10, 100.0, 1.0, "lower")
    assert bool(problems) is fails
    if fails:
        assert problems[0].startswith("the one-line rung (the starter with one line changed) "
                                      "gains ")
        assert "raise the bar or strengthen the starter" in problems[0]


@pytest.mark.parametrize(("direction", "scores", "threshold", "fails"), [
    # a time at 5% of the starter's: the starter's 4% spread moves its gain by 0.2%, not 4%
    ("lower", [0.049, 0.050, 0.048], 0.98, False),
    # an accuracy 20% above the starter's: its 2% spread moves the gain by 2.4%
    ("higher", [0.600, 0.600, 0.600], 0.27, True),
    ("higher", [0.600, 0.600, 0.600], 0.28, False),
])
def test_the_starters_noise_moves_a_gain_in_proportion_to_the_rungs_score(
    direction: str, scores: list[float], threshold: float, fails: bool
) -> None:
    baseline, starter_sd = (1.0, 0.04) if direction == "lower" else (0.5, 0.01)
    ladder = {"one-line": Rung("one-line", scores).measure(baseline, direction)}
    problems = check_short_of_bar(ladder, threshold, baseline, starter_sd, direction)
    assert bool(problems) is fails


def test_a_recipe_may_clear_the_bar_but_not_beat_the_reference() -> None:
    ladder = {"recipe": Rung("recipe", [70.0, 70.0]).measure(100.0, "lower")}
    assert check_short_of_bar(ladder, 0.10, 100.0, 1.0, "lower") == []
    assert check_reference_on_top(ladder, [65.0, 65.0], "mae", 100.0, "lower") == []
    (problem,) = check_reference_on_top(ladder, [72.0, None], "mae", 100.0, "lower")
    assert problem == ("the recipe rung (mae=70, +30.0%) does as well as the reference "
                       "solution (mae=72, +28.0%): the reference must be the best measured, "
                       "so strengthen it")


def test_the_table_shows_each_rung_beside_the_bar_and_old_rows_stay_readable() -> None:
    rung = Rung("one-line", [90.0, 92.0]).measure(100.0, "lower")
    row = {"direction": "lower", "solution": [70.0],
           "ladder": json.loads(json.dumps({"one-line": rung.__dict__}))}
    assert _ladder(row, 100.0) == "one-line +9.0% ± 1.4%; reference +30.0%"
    assert _ladder({"direction": "lower", "solution": [70.0]}, 100.0) == "-"
