"""--mlab-baseline-runs: a measured baseline made of as many runs of the starter as asked,
a kept one of fewer runs completed with the missing seeds' runs, never measured anew."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def _kept(pytester: pytest.Pytester) -> dict[str, Any]:
    (path,) = (pytester.path / "cache" / "baselines").glob("*.json")
    kept: dict[str, Any] = json.loads(path.read_text())
    return kept


@pytest.fixture
def measured_guess(task_tree: Callable[..., Path]) -> Path:
    """The guess task (two runs of its starter) with a baseline measured per machine."""
    root = task_tree("guess")
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace('kind = "recorded"', 'kind = "per-machine"'))
    assert "runs = 2" in manifest.read_text()
    return root


def test_fewer_runs_are_measured_then_completed_to_the_tasks_own_number(
    pytester: pytest.Pytester, measured_guess: Path, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    one = pytester.runpytest("tasks", "--agent=oracle", "--mlab-baseline-runs=1",
                             *mlab_args)
    one.assert_outcomes(passed=1)
    one.stdout.fnmatch_lines(["*reference=validation baseline-runs=1 run=*",
                              "mlab: guess: measuring its baseline (1 run of the starter)..."])
    first = _kept(pytester)["scores"]
    assert len(first) == 1
    assert [r["baseline_n"] for r in read_results()] == [1]

    # The task's own number: the kept run stays, the second seed's run is added.
    two = pytester.runpytest("tasks", "--agent=oracle", *mlab_args)
    two.assert_outcomes(passed=1)
    two.stdout.fnmatch_lines(["mlab: guess: measuring its baseline (1 run of the starter)..."])
    kept = _kept(pytester)["scores"]
    assert len(kept) == 2 and kept[0] == first[0]
    assert [r["baseline_n"] for r in read_results()] == [2]

    # Asked for fewer than are kept: all that is kept is used, nothing is measured.
    again = pytester.runpytest("tasks", "--agent=oracle", "--mlab-baseline-runs=1",
                               *mlab_args)
    again.assert_outcomes(passed=1)
    assert "measuring its baseline" not in again.stdout.str()
    assert _kept(pytester)["scores"] == kept
    assert [r["baseline_n"] for r in read_results()] == [2]


def test_a_baseline_runs_ini_key_that_is_no_number_is_one_sentence(
    pytester: pytest.Pytester, measured_guess: Path, mlab_args: list[str]
) -> None:
    pytester.makeini("[pytest]\nmlab_baseline_runs = few\n")
    result = pytester.runpytest("tasks", "--agent=oracle", *mlab_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini key mlab_baseline_runs: *"])
