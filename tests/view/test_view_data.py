"""The run browser's data layer: the run table, runs side by side, a trial and its steps,
with numbers checked by hand."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from view_runs import HOSTILE, trial_result, two_runs, write_run, write_steps

from pytest_mlab.core.results import RunResults
from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.core.snapshots import write_manifest
from pytest_mlab.report.browse.compare import comparison
from pytest_mlab.report.browse.runs import RunIndex, run_table
from pytest_mlab.report.browse.trace_pages import MAX_BYTES, MAX_STEPS, step_range
from pytest_mlab.report.browse.trial import trial_detail, trial_files


@pytest.fixture
def index(tmp_path: Path) -> RunIndex:
    two_runs(tmp_path / "reports")
    return RunIndex([tmp_path / "reports"])


def _runs(index: RunIndex, *keys: str) -> list[tuple[object, RunResults]]:
    found = []
    for key in keys:
        entry = index.entry(key)
        assert entry is not None
        run = index.results(entry)
        assert isinstance(run, RunResults)
        found.append((entry, run))
    return found


def test_the_run_table_counts_success_over_trials_that_ran_with_wilson(index: RunIndex) -> None:
    rows = {row["run_id"]: row for row in run_table(index)["runs"]}
    b = rows["run-b"]
    # 6 trials, 1 errored: 1 of the 5 that ran passed; Wilson 95% of 1/5 is [0.0362, 0.6245].
    assert (b["trials"], b["ran"], b["passed"], b["errors"]) == (6, 5, 1, 1)
    assert b["interval"] == pytest.approx([0.03622, 0.62447], abs=1e-5)
    assert b["cost"] == pytest.approx(0.06)
    assert ["titanic", "baseline", "", "error", "ScorerError"] in b["facets"]
    assert rows["run-a"]["passed"] == 6 and rows["run-a"]["agents"] == ["oracle"]
    # Newest first.
    assert [r["run_id"] for r in run_table(index)["runs"]] == ["run-b", "run-a"]


@pytest.mark.parametrize(("content", "reason"), [
    ("{not json", "not JSON (line 1"),
    ('{"run": {}, "results": [], "schema_version": 99}', "schema version 99 is newer"),
    ("[]", "not a pytest-mlab results.json"),
])
def test_an_unreadable_run_is_listed_with_its_reason(
    index: RunIndex, content: str, reason: str
) -> None:
    broken = index.roots[0] / "broken"
    broken.mkdir()
    (broken / "results.json").write_text(content)
    rows = run_table(index)["runs"]
    (row,) = [r for r in rows if r["folder"] == "broken"]
    assert reason in row["unreadable"] and str(broken) in row["unreadable"]
    assert len(rows) == 3


def test_runs_side_by_side_carry_the_gates_tests_where_trials_pair(
    tmp_path: Path, index: RunIndex
) -> None:
    # Run A's trials again as the baseline agent's: like with like against run B's.
    a = RunResults.read(tmp_path / "reports" / "run-a" / "results.json").results
    write_run(tmp_path / "reports", "run-a2", [r.model_copy(update={"agent": "baseline"})
                                               for r in a], started="2026-01-01T09:00:00")
    runs = _runs(RunIndex([tmp_path / "reports"]), "0.run-a2", "0.run-b")
    data = comparison(runs)  # type: ignore[arg-type]
    assert [c["run_id"] for c in data["columns"]] == ["run-a2", "run-b"]
    assert data["reference"] == 0
    rows = {(row["task"], row["agent"]): row["cells"] for row in data["rows"]}
    first, second = rows["house-price", "baseline"]
    assert first["tests"] is None and (first["passed"], first["ran"]) == (3, 3)
    assert first["mean_normalised"] == pytest.approx(0.75) and second["mean_normalised"] is None
    # Same trial numbers: McNemar on 2 pairs that got worse, none better: 0.5 ** 2.
    success = second["tests"]["success"]
    assert (success["test"], success["paired"]) == ("McNemar", True)
    assert success["p"] == pytest.approx(0.25) and success["delta"] == pytest.approx(-2 / 3)
    assert (success["delta_text"], success["p_text"]) == ("-67%", "0.25")
    assert second["mean_improvement"] == pytest.approx((0.15 + 0.01 + 0.01) / 3)
    # Titanic: trial 2 errored in run B, so the trials that ran do not pair: Fisher's test,
    # P(0 of 2 succeed | 3 of 5 do) = C(3,0) C(2,2) / C(5,2) = 1/10.
    titanic = rows["titanic", "baseline"][1]
    assert (titanic["tests"]["success"]["test"], titanic["tests"]["success"]["paired"]) == (
        "Fisher", False)
    assert titanic["tests"]["success"]["p"] == pytest.approx(0.1)
    assert titanic["errors"] == 1 and titanic["success_with_errors"] == 0
    assert [t["outcome"] for t in titanic["trial_list"]] == ["failed", "failed", "error"]


def test_runs_judged_by_other_rules_are_shown_without_a_success_test(
    tmp_path: Path, index: RunIndex
) -> None:
    strict = [trial_result("house-price", "baseline", t, success=False, improvement=0.15)
              for t in range(3)]
    for result in strict:
        result.final_answer_required = True
    write_run(tmp_path / "reports", "run-strict", strict, started="2026-01-03T10:00:00")
    runs = _runs(RunIndex([tmp_path / "reports"]), "0.run-b", "0.run-strict")
    data = comparison(runs)  # type: ignore[arg-type]
    tests = next(r["cells"] for r in data["rows"] if r["task"] == "house-price")[1]["tests"]
    assert tests["success"]["judged_apart"] == (
        "baseline run: threshold +10%; this run: threshold +10%, Final Answer required")
    assert tests["success"]["p"] is None and tests["success"]["test"] == "other rules"
    assert tests["improvement"]["judged_apart"] is None and tests["improvement"]["p"] is not None


def test_pass_at_k_and_best_of_k_match_a_hand_computation(index: RunIndex) -> None:
    data = comparison(_runs(index, "0.run-b"))  # type: ignore[arg-type]
    (cell,) = next(r["cells"] for r in data["rows"] if r["task"] == "house-price")
    k2 = next(a for a in cell["attempts"] if a["k"] == 2)
    # 1 of 3 passed: pass@2 = 1 - C(2,2)/C(3,2) = 2/3; pass^2 = C(1,2)/C(3,2) = 0;
    # best of 2 of (0.01, 0.01, 0.15) = (0 * 0.01 + 1 * 0.01 + 2 * 0.15) / 3.
    assert k2["pass_at_k"] == pytest.approx(2 / 3) and k2["pass_hat_k"] == 0
    assert k2["best_of_k"] == pytest.approx(0.31 / 3)
    assert [a["k"] for a in cell["attempts"]] == [1, 2, 3]


def test_a_trial_has_its_threshold_score_traceback_and_steps(index: RunIndex) -> None:
    ((entry, run),) = _runs(index, "0.run-b")
    passed = trial_detail(entry, run, 0)  # type: ignore[arg-type]
    # mae, lower is better: 50 less 10% of 50.
    assert passed["threshold_score"] == pytest.approx(45.0)
    assert passed["trace_steps"] == 4 and passed["traceback"] is None
    assert [s["step"] for s in passed["record"]["step_scores"]] == [1, 2, 3]
    assert {s["index"] for s in passed["siblings"]} == {0, 1, 2}
    assert passed["llm_calls_total"] == 2
    assert [(c["call"], c["model"], c["tokens_in"], c["cost"]) for c in passed["llm_calls"]] == [
        (1, "gpt-test", 1000, 0.01), (2, "gpt-test", 2000, 0.02)]
    errored = trial_detail(entry, run, 5)  # type: ignore[arg-type]
    assert "KeyError" in errored["traceback"] and HOSTILE in errored["traceback"]
    assert errored["record"]["error_class"] == "ScorerError"


def test_steps_come_by_range_with_usage_and_diffs(index: RunIndex) -> None:
    ((entry, run),) = _runs(index, "0.run-b")
    files = trial_files(entry, run.results[0])  # type: ignore[arg-type]
    assert files is not None
    steps, total = step_range(files.trace, files.manifests, files.objects, 1, 2)
    assert total == 4 and [s["step"] for s in steps] == [2, 3]
    assert (steps[0]["tokens_in"], steps[0]["llm_calls"]) == (100, 1)
    assert steps[0]["cost"] == pytest.approx(0.002)
    (change,) = steps[0]["changes"]
    assert change["kind"] == "modified" and "-alpha = 1\n+alpha = 2" in change["diff"]


def test_a_thought_recorded_with_a_step_is_shown_with_it(tmp_path: Path) -> None:
    trace = tmp_path / "run" / "traces" / "t.jsonl"
    trace.parent.mkdir(parents=True)
    trace.write_text(json.dumps({"step": 1, "action": "List Files", "args": {"dir_path": "."},
                                 "observation": "a\x1b[31m", "thought": "look first",
                                 "started": 1.0, "ended": 3.5}) + "\n")
    ((step,), total) = step_range(trace, tmp_path / "none", tmp_path / "none", 0, 5)
    assert total == 1 and step["thought"] == "look first" and step["seconds"] == 2.5
    assert step["observation"] == "a\\x1b[31m"  # control characters escaped
    assert (step["tokens_in"], step["cost"], step["changes"]) == (0, 0.0, [])


def test_a_step_taken_without_words_shows_no_thought(tmp_path: Path) -> None:
    trace = tmp_path / "run" / "traces" / "t.jsonl"
    trace.parent.mkdir(parents=True)
    trace.write_text(json.dumps({"step": 1, "action": "Execute Script", "thought": "",
                                 "args": {}, "observation": "", "started": 1.0, "ended": 2.0})
                     + "\n")
    ((step,), _) = step_range(trace, tmp_path / "none", tmp_path / "none", 0, 5)
    assert step["thought"] is None


def test_a_trace_of_many_megabytes_is_sent_a_bounded_range_at_a_time(tmp_path: Path) -> None:
    result = trial_result("house-price", "react", 0, success=False, improvement=0.0)
    run_dir = write_run(tmp_path, "big", [])
    write_steps(run_dir, result, 3000, observation="x" * 3990, snapshots=False)
    files = RunFiles(run_dir).trial(result.nodeid)
    with files.trace.open("a") as handle:
        handle.write('{"step": 3001, "action": "cut sh')  # an interrupted last line
    assert files.trace.stat().st_size > 10_000_000
    steps, total = step_range(files.trace, files.manifests, files.objects, 2990, 20)
    assert total == 3000 and [s["step"] for s in steps] == list(range(2991, 3001))
    asked_all, _ = step_range(files.trace, files.manifests, files.objects, 0, 100_000)
    assert len(asked_all) == MAX_STEPS
    assert len(json.dumps(asked_all)) < MAX_BYTES + 10_000


def test_no_file_outside_the_run_folder_is_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"step": 1, "action": "secret", "args": {}, "observation": "s3cret"}\n')
    result = trial_result("house-price", "oracle", 0, success=True, improvement=0.2)
    result.trace = str(Path("..") / ".." / "secret.jsonl")
    run_dir = write_run(tmp_path / "reports", "forged", [result])
    index = RunIndex([tmp_path / "reports"])
    ((entry, run),) = _runs(index, "0.forged")
    files = trial_files(entry, run.results[0])  # type: ignore[arg-type]
    assert files is not None and files.trace == run_dir / "traces" / "secret.jsonl"
    assert trial_detail(entry, run, 0)["trace_steps"] == 0  # type: ignore[arg-type]
    # A trace that is a link out of the run folder is not read either.
    files.trace.parent.mkdir(parents=True)
    os.symlink(secret, files.trace)
    assert trial_detail(entry, run, 0)["trace_steps"] == 0  # type: ignore[arg-type]


def test_a_forged_manifest_names_no_file_outside_the_store(tmp_path: Path) -> None:
    result = trial_result("house-price", "oracle", 0, success=True, improvement=0.2)
    run_dir = write_run(tmp_path, "forged", [])
    write_steps(run_dir, result, 2, snapshots=False)
    files = RunFiles(run_dir).trial(result.nodeid)
    (tmp_path / "outside.txt").write_text("private words\n")
    # object_path puts digest[:2] ("..") before the digest: one level fewer to climb.
    depth = "/".join([".."] * (len(files.objects.relative_to(tmp_path).parts) - 1))
    files.manifests.mkdir(parents=True, exist_ok=True)
    files.objects.mkdir(parents=True, exist_ok=True)
    write_manifest(files.manifests, 1, {})
    write_manifest(files.manifests, 2, {"a.txt": f"{depth}/outside.txt"})
    steps, _ = step_range(files.trace, files.manifests, files.objects, 1, 1)
    (change,) = steps[0]["changes"]
    assert "private words" not in json.dumps(steps) and change["diff"] == ""


def test_several_folders_and_a_run_folder_itself_each_give_their_runs(tmp_path: Path) -> None:
    two_runs(tmp_path / "reports")
    other = write_run(tmp_path / "elsewhere", "run-c", [
        trial_result("titanic", "oracle", 0, success=True, improvement=0.3)])
    index = RunIndex([tmp_path / "reports", other])
    rows = run_table(index)["runs"]
    assert sorted(r["key"] for r in rows) == ["0.run-a", "0.run-b", "1.run-c"]
    entry = index.entry("1.run-c")
    assert entry is not None and entry.folder == other


def test_a_run_folder_linked_from_outside_the_report_folder_is_not_listed(
    tmp_path: Path,
) -> None:
    two_runs(tmp_path / "reports")
    outside = write_run(tmp_path / "private", "run-x", [])
    (tmp_path / "reports" / "linked").symlink_to(outside, target_is_directory=True)
    keys = [r["key"] for r in run_table(RunIndex([tmp_path / "reports"]))["runs"]]
    assert keys == ["0.run-b", "0.run-a"]
