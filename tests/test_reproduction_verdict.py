"""The reproduction's decision, its clean copy, and where unreproduced trials are counted."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.analysis.judging_rules import rules_text
from pytest_mlab.analysis.summary import group_summary
from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.fingerprint import write_hashes
from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.task import TaskManifest, TaskSpec
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.report.columns import table
from pytest_mlab.report.forecast import reproduction_lines
from pytest_mlab.report.rows import rows_of
from pytest_mlab.trial.clean_copy import clean_copy
from pytest_mlab.trial.reproduction_verdict import judge_reproduction, noise_margin
from pytest_mlab.trial.scoring import Scored

GUESS = Path(__file__).parent / "examples" / "guess" / "task.toml"


def _task(**changes: object) -> TaskSpec:
    raw = tomllib.loads(GUESS.read_text()) | changes
    return TaskSpec(root=GUESS.parent, manifest=TaskManifest.model_validate(raw))


def _prepared(tmp_path: Path, files: dict[str, str] | None = None) -> PreparedData:
    """Prepared data holding ``files`` as its public part, and no answers."""
    public, private = tmp_path / "data" / "public", tmp_path / "data" / "private"
    public.mkdir(parents=True)
    private.mkdir()
    for name, text in (files or {}).items():
        (public / name).write_text(text)
    write_hashes(public, tmp_path / "data" / "public.sha256.json")
    return PreparedData(public, private)


def _passed(score: float = 8.0) -> TrialResult:
    return TrialResult(
        nodeid="guess[t0]", task="guess", agent="a", llm=None, trial=0, metric="error",
        direction="lower", outcome="passed", success=True, score=score, threshold=0.1,
        message="guess: error=8 is 20% better than baseline 10 (needed 10%)",
    )


def test_the_margin_is_three_baseline_sd_and_says_so() -> None:
    margin = noise_margin(Baseline(10.0, 0.5, 5, "recorded"))
    assert margin.width == pytest.approx(1.5)
    assert margin.words == "the task's noise (3 baseline sd = 1.5)"


def test_a_deterministic_starter_gets_a_floor_named_as_such() -> None:
    margin = noise_margin(Baseline(10.0, 0.0, 2, "recorded"))
    assert margin.width == pytest.approx(1e-5)
    assert "1e-06 of the baseline mean" in margin.words and "its sd being 0" in margin.words


def test_a_score_within_the_noise_is_reproduced_and_keeps_its_sentence() -> None:
    result = _passed()
    before = result.message
    judge_reproduction(result, Scored(9.4), Baseline(10.0, 0.5, 5, "recorded"), "train.py",
                       strict=True)
    assert result.reproduced_score == 9.4 and not result.unreproduced
    assert result.success and result.message == before


def test_a_score_outside_the_noise_is_unreproduced_but_passes_without_strict() -> None:
    result = _passed()
    judge_reproduction(result, Scored(10.0), Baseline(10.0, 0.5, 5, "recorded"), "train.py",
                       strict=False)
    assert result.unreproduced and result.success and result.outcome == "passed"
    assert result.score == 8.0 and result.reproduced_score == 10.0
    assert result.message.endswith(
        "; unreproduced: train.py, run again on a clean copy of the final workspace, scored "
        "error=10, outside the task's noise (3 baseline sd = 1.5) of the submitted error=8")


def test_no_reproduced_submission_is_unreproduced_and_strict_fails_it() -> None:
    result = _passed()
    judge_reproduction(result, Scored(None, "submission.txt is missing"),
                       Baseline(10.0, 0.5, 5, "recorded"), "train.py", strict=True)
    assert result.unreproduced and result.reproduced_score is None
    assert not result.success and result.outcome == "failed"
    assert result.message.endswith(
        "wrote no valid submission (submission.txt is missing) where the submitted one scored "
        "error=8, which --mlab-strict fails")


def test_a_failed_trial_stays_failed_and_is_still_marked() -> None:
    result = _passed(9.5)
    result.success, result.outcome = False, "failed"
    judge_reproduction(result, Scored(20.0), Baseline(10.0, 0.5, 5, "recorded"), "train.py",
                       strict=True)
    assert result.unreproduced and result.outcome == "failed"


@pytest.mark.parametrize(("submission", "reproduced"), [
    (["submission.txt"], True), (["output/**"], True), (["**"], False), (["*.py"], False),
])
def test_the_entry_script_makes_the_submission_unless_a_pattern_names_it(
    submission: list[str], reproduced: bool,
) -> None:
    assert _task(submission=submission).entry_makes_submission is reproduced


def test_the_clean_copy_leaves_the_submission_out_and_places_public_data_anew(
    tmp_path: Path,
) -> None:
    data = _prepared(tmp_path, {"data.txt": "1\n2\n"})
    final = tmp_path / "final"
    (final / "empty").mkdir(parents=True)
    (final / "train.py").write_text("print('hi')\n")
    (final / "submission.txt").write_text("50\n")
    (final / "data.txt").write_text("1\n2\n")
    (final / "link").symlink_to("train.py")
    os.mkfifo(final / "pipe")
    copy = clean_copy(_task(), Workspace(final), data,
                      tmp_path / "copy")
    names = sorted(p.name for p in copy.root.iterdir())
    assert names == ["data.txt", "empty", "link", "train.py"]
    assert os.readlink(copy.root / "link") == "train.py"
    assert "data.txt" in copy.protected
    assert (copy.root / "data.txt").stat().st_mode & 0o222 == 0


def test_unreproduced_trials_are_counted_apart_where_rates_are_shown() -> None:
    honest, copied = _passed(), _passed()
    copied.nodeid, copied.trial, copied.unreproduced, copied.strict = "guess[t1]", 1, True, True
    (row,) = rows_of([honest, copied])
    assert (row.passed, row.ran, row.unreproduced) == (2, 2, 1)
    header, cells = table([row], "terminal")
    assert cells[header.index("unreproduced")] == "1"
    assert group_summary([honest, copied]).unreproduced == 1
    assert rules_text([copied]).endswith(", unreproduced trials failed")


def test_the_forecast_names_the_extra_runs() -> None:
    (line,) = reproduction_lines({"guess": (2, 30.0)}, {"guess": 0.5})
    assert line == ("mlab forecast: reproduction: one more run of the entry script after each "
                    "of 2 trials (guess), at most 1m00s in all (the script time limit each), "
                    "at least 1.0s from the starter's runs in validation.json; no LLM cost")
    assert reproduction_lines({}, {}) == []


def test_a_sandbox_that_fails_in_the_reproduction_is_the_harness_error(tmp_path: Path) -> None:
    from pytest_mlab.core.errors import SandboxError
    from pytest_mlab.trial.reproduction_run import Reproducer, reproduce

    data = _prepared(tmp_path)
    final = tmp_path / "final"
    final.mkdir()
    (final / "train.py").write_text("print('hi')\n")

    def broken(workspace: Workspace) -> Any:
        raise SandboxError("the engine is gone")

    with pytest.raises(SandboxError, match="the engine is gone"):
        reproduce(_task(), Workspace(final), data,
                  Reproducer(broken, 30.0), None)


def test_a_final_workspace_without_its_entry_script_is_unreproduced(tmp_path: Path) -> None:
    from pytest_mlab.trial.reproduction_run import Reproducer, reproduce

    data = _prepared(tmp_path)
    final = tmp_path / "final"
    final.mkdir()

    def never(workspace: Workspace) -> Any:
        raise AssertionError("no sandbox is needed without a script to run")

    again = reproduce(_task(), Workspace(final), data,
                      Reproducer(never, 30.0), None)
    assert again == Scored(None, "the entry script train.py is not a file in the final "
                                 "workspace")
