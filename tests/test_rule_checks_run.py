"""The rule checks at the end of real trials (issue 40): a perfect submission typed in by
hand from answers planted in the workspace is flagged and unreproduced; the honest oracle's
and the starter's trials are neither; the flags are in results.json, the report, and the answer of
``python -m pytest_mlab check RUN``; the gate can leave the flagged trials out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.analysis.gate import compare
from pytest_mlab.cli.check import main as check_main
from pytest_mlab.core.results import RunResults


@pytest.mark.slow
def test_a_hand_typed_perfect_submission_is_flagged_and_unreproduced_the_oracles_neither(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # room for the counts beside the rate
    root = recorded("planted")
    starters = json.loads(next(pytester.path.glob("baseline-runs/*/results.json")).read_text())
    assert [r["flags"] for r in starters["results"]] == [[], []]

    run = pytester.runpytest(str(root), "--agent=oracle",
                             "--agent=scripted_agents:HandWrittenAgent", *mlab_args)
    run.assert_outcomes(passed=2)
    records = {str(r["agent"]).rpartition(":")[2]: r for r in read_results()}
    assert records["oracle"]["flags"] == []
    assert records["oracle"]["unreproduced"] is False
    assert records["oracle"]["reproduced_score"] == records["oracle"]["score"]
    cheat = records["HandWrittenAgent"]
    assert cheat["score"] == 1.0  # perfect: the mean absolute error is 0, plus one
    # Its entry script, the starter it never ran, does not remake that submission.
    assert cheat["unreproduced"] is True and cheat["reproduced_score"] > 1.0
    assert [(f["check"], f["step"]) for f in cheat["flags"]] == [
        ("answer-read", 1), ("submission-by-action", 2)]
    assert cheat["flags"][1]["sentence"] == (
        "the scored submission.csv was last written by the Write File action, not by a script")
    # Counted apart beside the rate in the terminal's table: one trial each of the cheat's.
    # No trial errored: the errors column, 0 on every row, is left out.
    run.stdout.fnmatch_lines(["task * agent * success * unreproduced * flagged",
                              "planted * oracle * 1/1 * 0 * 0",
                              "planted *:HandWrittenAgent * 1/1 * 1 * 1",
                              "columns left out: *errors*(0 on every row)"])
    report = next(pytester.path.glob("reports/*/report.html")).read_text()
    assert "submission-by-action at step 2: the scored submission.csv" in report

    run_dir = next(pytester.path.glob("reports/*/results.json")).parent
    capsys.readouterr()
    assert check_main([str(run_dir)]) == 1
    printed = capsys.readouterr().out
    assert printed.splitlines() == [
        "tasks_planted_task.toml_planted_oracle-t0: 0 flags",
        "tasks_planted_task.toml_planted_scripted_agents_HandWrittenAgent-t0: 2 flags",
        "  answer-read at step 1: the Read File action named answers.csv, which the task "
        "lists as giving its answers away",
        "  submission-by-action at step 2: the scored submission.csv was last written by the "
        "Write File action, not by a script",
    ]
    # --record writes the flags into results.json (here: into one whose flags were lost).
    saved = RunResults.read(run_dir / "results.json")
    for result in saved.results:
        result.flags = []
    saved.write(run_dir / "results.json")
    assert check_main([str(run_dir), "--record"]) == 1
    rerecorded = RunResults.read(run_dir / "results.json").results
    again = {r.agent.rpartition(":")[2]: r for r in rerecorded}
    assert [f.check for f in again["HandWrittenAgent"].flags] == ["answer-read",
                                                                  "submission-by-action"]
    assert again["oracle"].flags == []


def test_checking_a_folder_that_is_no_run_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert check_main([str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path} holds no traces/ with a trial's trace: not a run folder\n")


def test_the_gate_can_leave_flagged_trials_out() -> None:
    run = _run_with(flagged=True)
    kept = compare(run, run, leave_flagged=True)
    assert [c.sizes for c in kept.comparisons if c.metric == "success"] == [(1, 1)]
    everything = compare(run, run)
    assert [c.sizes for c in everything.comparisons if c.metric == "success"] == [(2, 2)]


def _run_with(flagged: bool) -> RunResults:
    trial = {"nodeid": "t", "task": "planted", "agent": "a", "llm": None, "metric": "mae",
             "direction": "lower", "outcome": "passed", "success": True, "score": 1.0,
             "baseline_mean": 31.0, "improvement": 0.9, "threshold": 0.1}
    flags = [{"check": "submission-by-action", "step": 2, "sentence": "by hand"}]
    results = [{**trial, "trial": 0}, {**trial, "trial": 1, "flags": flags if flagged else []}]
    return RunResults.model_validate({"run": {
        "run_id": "r", "started": "", "finished": "", "command": [], "machine": "m",
        "pytest_mlab_version": "0"}, "results": results})


def test_a_run_saved_before_the_checks_reads_as_unflagged(tmp_path: Path) -> None:
    old = _run_with(flagged=False).model_dump(mode="json")
    old["schema_version"] = 5
    for record in old["results"]:
        record["schema_version"] = 5
        del record["flags"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(old))
    assert [r.flags for r in RunResults.read(path).results] == [[], []]
