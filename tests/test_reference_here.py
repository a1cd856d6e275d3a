"""The reference solution's score where the baseline is (--mlab-reference=here): measured
on this machine with the trial's data, kept, reused, and named in every record; and
validation.json's, measured elsewhere, marked as such in the record and the summaries."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest

from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.task import load_task
from pytest_mlab.trial.reference import Reference, apart
from pytest_mlab.trial.reference_measure import SOLUTION_SEEDS, keep_solutions

GUESS = Path(__file__).parent / "examples" / "guess"


def _run(pytester: pytest.Pytester, mlab_args: list[str], *args: str) -> pytest.RunResult:
    return pytester.runpytest("tasks", "--agent=oracle", "--mlab-trials=2", *mlab_args, *args)


def _trials(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    newest = max(pytester.path.glob("reports/*/results.json"), key=lambda p: p.stat().st_mtime_ns)
    trials: list[dict[str, Any]] = json.loads(newest.read_text())["results"]
    return trials


def _kept(pytester: pytest.Pytester, kind: str) -> Path:
    (path,) = (pytester.path / "cache" / kind).glob("*.json")
    return path


@pytest.fixture
def measured_guess(pytester: pytest.Pytester, task_tree: Callable[..., Path]) -> Path:
    """The guess task with a per-machine baseline, and a validation.json of its own
    (measured elsewhere) whose reference no run here could give."""
    root = task_tree("guess")
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace('kind = "recorded"', 'kind = "per-machine"'))
    (root.parent / "validation.json").write_text(json.dumps(
        {"guess": {"solution": [0.25, 0.75], "machine": {"machine": "elsewhere-x86_64-64cpu"}}}))
    return root


def test_here_measures_the_reference_where_the_baseline_is_and_keeps_it(
    pytester: pytest.Pytester, measured_guess: Path, mlab_args: list[str]
) -> None:
    result = _run(pytester, mlab_args, "--mlab-reference=here")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*reference=here*"])
    kept = json.loads(_kept(pytester, "references").read_text())
    assert len(kept["scores"]) == len(SOLUTION_SEEDS) and fmean(kept["scores"]) != 0.5
    # The data folders of the baseline and the reference are one and the same.
    assert _kept(pytester, "references").name == _kept(pytester, "baselines").name
    base = fmean(json.loads(_kept(pytester, "baselines").read_text())["scores"])
    for trial in _trials(pytester):
        assert trial["reference_source"] == "here" and trial["reference_note"] is None
        assert trial["reference_mean"] == pytest.approx(fmean(kept["scores"]))
        assert trial["normalised_score"] == pytest.approx(
            (trial["score"] - base) / (fmean(kept["scores"]) - base))
    assert "measured on another machine or data" not in result.stdout.str()

    # Kept, it is read again, not measured again: a planted figure comes back.
    planted = {**kept, "scores": [7.0, 7.0, 7.0]}
    _kept(pytester, "references").write_text(json.dumps(planted))
    _run(pytester, mlab_args, "--mlab-reference=here").assert_outcomes(passed=2)
    assert {t["reference_mean"] for t in _trials(pytester)} == {7.0}


def test_validation_json_reference_is_marked_as_measured_elsewhere(
    pytester: pytest.Pytester, measured_guess: Path, mlab_args: list[str]
) -> None:
    result = _run(pytester, mlab_args)
    result.assert_outcomes(passed=2)
    for trial in _trials(pytester):
        assert trial["reference_source"] == "validation.json"
        assert trial["reference_mean"] == pytest.approx(0.5)
        assert "elsewhere-x86_64-64cpu" in trial["reference_note"]
        assert "--mlab-reference=here" in trial["reference_note"]
    assert not (pytester.path / "cache" / "references").exists()
    result.stdout.fnmatch_lines([
        "mean normalised score oracle: * the reference of 1 of the 1 task was measured on "
        "another machine or data than their baseline (guess)*"])
    report = max(pytester.path.glob("reports/*/report.html"), key=lambda p: p.stat().st_mtime)
    assert 'class="note reference-apart"' in report.read_text()


def test_a_reference_solution_without_a_score_is_an_error_of_the_harness(
    pytester: pytest.Pytester, measured_guess: Path, mlab_args: list[str]
) -> None:
    (measured_guess / "solution" / "train.py").write_text(
        "from pathlib import Path\nPath('submission.txt').write_text('no number\\n')\n")
    result = _run(pytester, mlab_args, "--mlab-reference=here", "--mlab-trials=1")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*guess: the reference solution has no valid score here*"])
    assert not list((pytester.path / "cache" / "references").glob("*.json"))


def test_validate_keeps_the_solution_runs_only_when_each_scored(tmp_path: Path) -> None:
    task = load_task(GUESS / "task.toml")
    path = tmp_path / "references" / "guess.json"
    assert not keep_solutions(task, path, [1.0, None, 2.0]) and not path.exists()
    assert keep_solutions(task, path, [1.0, 2.0, 3.0])
    assert json.loads(path.read_text())["scores"] == [1.0, 2.0, 3.0]
    assert not keep_solutions(task, path, [4.0, 5.0, 6.0])  # the first kept stays
    assert json.loads(path.read_text())["scores"] == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(("reference", "baseline", "together"), [
    (Reference(1.0, 3, "here", "m"), Baseline(0.5, 0.1, 5, "per-machine", "m"), True),
    (Reference(1.0, 3, "here", "m"), Baseline(0.5, 0.1, 5, "per-session", "m"), True),
    (Reference(1.0, 3, "here", "m"), Baseline(0.5, 0.1, 5, "recorded", "m"), False),
    (Reference(1.0, 3, "validation.json", "m"), Baseline(0.5, 0.1, 5, "per-machine", "m"),
     False),
    (Reference(1.0, 3, "validation.json", "m"), Baseline(0.5, 0.1, 5, "recorded", "m"), True),
    (Reference(1.0, 3, "validation.json", "m"), Baseline(0.5, 0.1, 5, "recorded", "n"), False),
    (Reference(1.0, 3, "validation.json", ""), Baseline(0.5, 0.1, 5, "recorded", ""), False),
])
def test_a_scale_is_of_one_place_only_where_both_ends_were_measured_there(
    reference: Reference, baseline: Baseline, together: bool
) -> None:
    note = apart(reference, baseline)
    assert (note is None) == together
