"""Submissions that their code reproduces: the final workspace's entry script runs again on a
clean copy, and a submission it does not remake is unreproduced (issue 40)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HAND_WRITTEN = "--agent=scripted_agents:TypedAnswerAgent"


def _plant_answer(pytester: pytest.Pytester) -> Path:
    """The hidden answer of the prepared guess task, copied where the agent reads it."""
    (answer,) = (pytester.path / "cache" / "data").glob("guess-*/private/answer.txt")
    planted = pytester.path / "planted-answer.txt"
    planted.write_text(answer.read_text())
    return planted


def test_a_submission_written_by_hand_is_unreproduced_and_says_both_scores(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setenv("MLAB_TEST_ANSWER", str(_plant_answer(pytester)))
    monkeypatch.setenv("COLUMNS", "200")  # room for the count beside the rate
    result = pytester.runpytest("tasks", HAND_WRITTEN, *mlab_args)
    result.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["score"] == pytest.approx(1.0)  # the scorer's perfect guess
    assert record["unreproduced"] is True and record["strict"] is False
    assert record["reproduced_score"] > record["baseline_mean"] - 1e-6
    message = record["message"]
    assert "unreproduced: train.py, run again on a clean copy of the final workspace" in message
    assert f"error={record['reproduced_score']:.6g}" in message
    assert message.endswith(" of the submitted error=1")
    # Counted apart beside the rate: the terminal's table and the report.
    result.stdout.fnmatch_lines(["task * success * unreproduced *",
                                 "guess * 1/1 * 1 *"])
    (html,) = pytester.path.glob("reports/*/report.html")
    assert '<span class="badge unreproduced">unreproduced</span>' in html.read_text()
    # The guess starter is deterministic: its sd is 0, so the margin is the floor.
    assert "outside the task's noise (1e-06 of the baseline mean" in message


def test_with_strict_the_hand_written_submission_fails(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setenv("MLAB_TEST_ANSWER", str(_plant_answer(pytester)))
    result = pytester.runpytest("tasks", HAND_WRITTEN, "--mlab-strict", *mlab_args)
    result.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["outcome"] == "failed" and record["success"] is False
    assert record["unreproduced"] is True and record["strict"] is True
    assert record["message"].endswith(", which --mlab-strict fails")
    result.stdout.fnmatch_lines(["*unreproduced: train.py*--mlab-strict fails*"])


def test_the_oracle_is_reproduced(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    result = pytester.runpytest("tasks", "--agent=oracle", "--mlab-trials=2", "--mlab-strict",
                                *mlab_args)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["mlab forecast: reproduction: one more run of the entry script "
                                 "after each of 2 trials (guess), at most 1m00s in all*"])
    for record in read_results():
        assert record["unreproduced"] is False
        assert record["reproduced_score"] == pytest.approx(record["score"])
        assert "unreproduced" not in record["message"]


def test_reproduce_off_runs_nothing_again(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setenv("MLAB_TEST_ANSWER", str(_plant_answer(pytester)))
    result = pytester.runpytest("tasks", HAND_WRITTEN, "--mlab-reproduce=off", "--mlab-strict",
                                *mlab_args)
    result.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["reproduced_score"] is None and record["unreproduced"] is False
