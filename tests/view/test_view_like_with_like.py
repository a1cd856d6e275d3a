"""Issue 43 in the browser's data: runs compared like with like (each run's task x agent x
llm against the same one in the reference run), one rate per agent in the run list with
its errors, saved name and duration, and trials that say how they ended."""

from __future__ import annotations

from pathlib import Path

import pytest
from view_runs import agent_runs, two_runs

from pytest_mlab.analysis.saved_runs import Storage
from pytest_mlab.core.results import RunResults
from pytest_mlab.report.browse.compare import comparison
from pytest_mlab.report.browse.runs import RunIndex, run_table
from pytest_mlab.report.browse.server import Api


def _runs(index: RunIndex, *keys: str) -> list[tuple[object, RunResults]]:
    found = []
    for key in keys:
        entry = index.entry(key)
        assert entry is not None
        run = index.results(entry)
        assert isinstance(run, RunResults)
        found.append((entry, run))
    return found


def test_each_run_is_tested_against_the_same_agent_in_the_reference(tmp_path: Path) -> None:
    agent_runs(tmp_path / "reports")
    index = RunIndex([tmp_path / "reports"])
    data = comparison(_runs(index, "0.run-0", "0.run-1", "0.run-2"))  # type: ignore[arg-type]
    rows = {row["agent"]: row["cells"] for row in data["rows"]}
    assert set(rows) == {"oracle", "baseline"} and data["reference"] == 0
    # Oracle against oracle: every trial passed in both, no fall (not -100 points against
    # the reference's baseline, which passed one in three).
    for cell in rows["oracle"][1:]:
        assert cell["tests"]["success"]["delta"] == 0 and cell["tests"]["success"]["p"] == 1
    # Baseline against baseline: trial 0 fell; trial 2 errored, so the trials that ran
    # (0 and 1) do not pair with the reference's three: Fisher, P(0 of 2 | 1 of 5) = 3/5.
    success = rows["baseline"][1]["tests"]["success"]
    assert (success["test"], success["delta_text"]) == ("Fisher", "-33%")
    assert success["p"] == pytest.approx(0.6)


def test_a_group_one_run_lacks_is_none_there_and_untested(tmp_path: Path) -> None:
    folders = agent_runs(tmp_path / "reports", 2)
    two_runs(tmp_path / "reports")
    index = RunIndex([tmp_path / "reports"])
    data = comparison(_runs(index, "0.run-0", "0.run-b"))  # type: ignore[arg-type]
    cells = {(row["task"], row["agent"]): row["cells"] for row in data["rows"]}
    assert cells["titanic", "baseline"][0] is None  # run-0 ran no titanic
    assert cells["titanic", "baseline"][1]["tests"] is None
    assert cells["house-price", "oracle"][1] is None  # run-b ran no oracle
    assert len(folders) == 2


def test_the_saved_run_the_gate_compares_with_is_the_default_reference(
    tmp_path: Path,
) -> None:
    folders = agent_runs(tmp_path / "reports", 3)
    storage = Storage(tmp_path / "saved")
    storage.save(RunResults.read(folders[0] / "results.json"), "older")
    storage.save(RunResults.read(folders[1] / "results.json"), "nightly")
    index = RunIndex([tmp_path / "reports"], tmp_path / "saved")
    api = Api(index)
    data = api.compare({"runs": ["0.run-2,0.run-1,0.run-0"]})
    assert data["reference"] == 1 and data["columns"][1]["saved"] == "0002_nightly"
    assert data["rows"][0]["cells"][1]["tests"] is None
    asked = api.compare({"runs": ["0.run-2,0.run-1,0.run-0"], "ref": ["0.run-0"]})
    assert asked["reference"] == 2
    rows = {row["run_id"]: row for row in run_table(index)["runs"]}
    assert (rows["run-1"]["saved"], rows["run-1"]["gate_baseline"]) == ("0002_nightly", True)
    assert (rows["run-0"]["saved"], rows["run-0"]["gate_baseline"]) == ("0001_older", False)
    assert rows["run-2"]["saved"] is None


def test_the_run_list_has_a_rate_per_agent_with_its_errors_and_the_duration(
    tmp_path: Path,
) -> None:
    agent_runs(tmp_path / "reports", 2)
    (row,) = [r for r in run_table(RunIndex([tmp_path / "reports"]))["runs"]
              if r["run_id"] == "run-1"]
    groups = {g["agent"]: g for g in row["groups"]}
    assert (groups["oracle"]["passed"], groups["oracle"]["ran"], groups["oracle"]["errors"]) == (
        3, 3, 0)
    assert (groups["baseline"]["passed"], groups["baseline"]["ran"],
            groups["baseline"]["errors"]) == (0, 2, 1)
    assert groups["baseline"]["success_with_errors"] == 0 and row["errors"] == 1
    assert row["seconds"] == 0.0  # write_run's runs finish as they start


def test_a_trial_list_says_how_each_trial_ended_and_filters_on_it(tmp_path: Path) -> None:
    agent_runs(tmp_path / "reports", 2)
    api = Api(RunIndex([tmp_path / "reports"]))
    data = api.run({"run": ["0.run-1"]})
    errored = data["trials"][-1]
    assert errored["outcome"] == "error" and errored["ended_by"] == ""
    assert errored["message"].startswith("ScorerError: the scorer crashed xxx")
    assert len(errored["message"]) == 90 and errored["message"].endswith("…")
    assert errored["message_full"] == "ScorerError: the scorer crashed " + "x" * 200
    assert data["outcomes"] == ["error", "failed", "passed"]
    assert data["ended_by"] == ["", "final_answer"]
    failed = api.run({"run": ["0.run-1"], "outcome": ["failed"]})
    assert [t["outcome"] for t in failed["trials"]] == ["failed", "failed"]
    assert (failed["total"], failed["all"]) == (2, 6)
    by = api.run({"run": ["0.run-1"], "ended_by": ["final_answer"]})
    assert by["total"] == 5


def test_the_default_k_is_every_trial_that_ran_as_in_the_terminal(tmp_path: Path) -> None:
    agent_runs(tmp_path / "reports", 2)
    groups = Api(RunIndex([tmp_path / "reports"])).run({"run": ["0.run-1"]})["groups"]
    ks = {g["agent"]: (g["k"], max(a["k"] for a in g["attempts"])) for g in groups}
    assert ks == {"oracle": (3, 3), "baseline": (2, 2)}
