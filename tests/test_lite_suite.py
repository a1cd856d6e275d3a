"""The lite suite is sound: each task's kept figures obey the rules, and CI validates again
exactly the tasks whose validation fingerprint moved since their row was written.

Validating the whole suite again on this machine (about 35 minutes on 2 cores):
    python -m pytest_mlab validate-suite tasks/lite
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.cli.new_task import scaffold
from pytest_mlab.cli.validate_suite import select
from pytest_mlab.core.task import TaskSpec, load_task
from pytest_mlab.core.validation_fingerprint import (
    VALIDATION,
    fingerprint,
    fingerprint_parts,
    stale_tasks,
)
from pytest_mlab.trial.spec import Overrides
from pytest_mlab.trial.validation import NOISE_SDS, SEEDS

REPO = Path(__file__).parent.parent
LITE = REPO / "tasks" / "lite"
TASKS = [load_task(m) for m in sorted(LITE.glob("*/task.toml"))]


def _kept() -> dict[str, dict[str, Any]]:
    kept: dict[str, dict[str, Any]] = json.loads((LITE / VALIDATION).read_text("utf-8"))
    return kept


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_each_lite_task_says_what_it_mirrors_and_ships_its_floors(task: TaskSpec) -> None:
    assert task.manifest.mirrors and task.manifest.differs
    assert task.null_dir.is_dir() and task.solution_dir.is_dir()
    assert [p for p in task.heuristics_dir.glob("*") if p.is_dir()], "no heuristics"


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_each_lite_task_was_validated_as_it_is_now(task: TaskSpec) -> None:
    check = _kept()[task.name]
    assert check["problems"] == []
    scores = check["baseline"]
    assert len(scores) >= SEEDS and len(set(scores)) > 1, "the seeds gave one score"
    mean = sum(scores) / len(scores)
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (len(scores) - 1))
    assert Overrides().threshold_for(task) >= NOISE_SDS * sd / abs(mean)
    rungs = {rung["heuristic"] for rung in check.get("ladder", {}).values()}
    assert set(check["heuristics"]) | rungs == {
        p.name for p in task.heuristics_dir.glob("*") if p.is_dir()}
    if task.manifest.baseline.kind == "recorded":
        record = json.loads(task.baseline_record.read_text("utf-8"))
        assert record["task_hash"] == task.content_hash(), (
            f"{task.name} changed since it was validated: pytest {task.root} --mlab-validate")
        assert record["scores"] == scores


def test_a_learned_lite_task_measures_its_baseline_where_it_runs() -> None:
    # Their data is drawn per cache: a baseline recorded elsewhere cannot hold.
    kinds = {task.name: task.manifest.baseline.kind for task in TASKS}
    assert {name for name, kind in kinds.items() if kind == "per-session"} == {
        "llama-inference", "vectorization"}
    assert {kind for name, kind in kinds.items() if kind != "per-session"} == {"per-machine"}


@pytest.fixture
def current_suite(tmp_path: Path) -> Path:
    """A copy of the lite suite whose every row was written for the tasks as they are."""
    copy = shutil.copytree(LITE, tmp_path / "lite", ignore=shutil.ignore_patterns(
        "__pycache__"))
    rows = {}
    for task in TASKS:
        parts = fingerprint_parts(task)
        rows[task.name] = _kept()[task.name] | {"fingerprint": fingerprint(parts),
                                                "fingerprint_parts": parts}
    (copy / VALIDATION).write_text(json.dumps(rows), encoding="utf-8")
    return copy


def test_ci_validates_again_only_the_task_whose_file_changed(current_suite: Path) -> None:
    assert stale_tasks(current_suite) == {}
    assert select(current_suite, changed=True, smoke=["essay-scoring"]) == {
        "essay-scoring": "smoke"}
    starter = current_suite / "titanic" / "env" / "train.py"
    starter.write_text(starter.read_text() + "# another line\n")
    (reason,) = stale_tasks(current_suite).values()
    assert list(stale_tasks(current_suite)) == ["titanic"]
    assert reason.startswith("changed: task ")
    assert list(select(current_suite, changed=True, smoke=["essay-scoring"])) == [
        "essay-scoring", "titanic"]
    assert len(select(current_suite, changed=False, smoke=[])) == len(TASKS)


def test_the_wording_of_task_toml_leaves_a_task_current(current_suite: Path) -> None:
    manifest = current_suite / "house-price" / "task.toml"
    manifest.write_text(manifest.read_text().replace('research_problem = """\n',
                                                     'research_problem = """\nReworded. '))
    assert load_task(manifest).manifest.research_problem.startswith("Reworded. ")
    assert stale_tasks(current_suite) == {}


def test_a_changed_solution_heuristic_or_bar_makes_a_task_stale(current_suite: Path) -> None:
    solution = current_suite / "tiny-lm" / "solution" / "train.py"
    solution.write_text(solution.read_text() + "# another line\n")
    heuristic = next(p for p in (current_suite / "parkinsons" / "heuristics").iterdir())
    (heuristic / "note.txt").write_text("new\n")
    manifest = current_suite / "titanic" / "task.toml"
    manifest.write_text(re.sub(r"^threshold = .*$", "threshold = 0.5", manifest.read_text(),
                               count=1, flags=re.MULTILINE))
    assert load_task(manifest).manifest.threshold == 0.5
    stale = stale_tasks(current_suite)
    assert sorted(stale) == ["parkinsons", "tiny-lm", "titanic"]
    assert stale["tiny-lm"].startswith("changed: floors ")
    assert stale["titanic"].startswith("changed: manifest ")


def test_another_library_version_or_scoring_path_makes_a_row_stale(
    current_suite: Path,
) -> None:
    rows = json.loads((current_suite / VALIDATION).read_text("utf-8"))
    rows["tiny-lm"]["fingerprint_parts"]["numpy"] = "0.1"
    rows["contrails"]["fingerprint_parts"]["scoring"] = "0" * 16
    del rows["parkinsons"]["fingerprint_parts"]
    del rows["titanic"]
    (current_suite / VALIDATION).write_text(json.dumps(rows), encoding="utf-8")
    stale = stale_tasks(current_suite)
    assert stale["tiny-lm"].startswith("changed: numpy 0.1 -> ")
    assert stale["contrails"].startswith("changed: scoring 0000")
    assert stale["parkinsons"] == "its row has no fingerprint"
    assert stale["titanic"] == "no row in validation.json"
    assert len(stale) == 4


def test_a_row_whose_validation_failed_is_validated_again(current_suite: Path) -> None:
    """A failed validation writes its row with the new fingerprint, so that the table says
    why; that row must not read as current, or --changed would never try the task again."""
    rows = json.loads((current_suite / VALIDATION).read_text("utf-8"))
    rows["titanic"]["problems"] = ["the starter has no valid score with seed 0: ..."]
    (current_suite / VALIDATION).write_text(json.dumps(rows), encoding="utf-8")
    assert stale_tasks(current_suite) == {
        "titanic": "its last validation failed: the starter has no valid score with seed 0: ..."}


def _validate_suite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest_mlab", "validate-suite", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=600)


def test_validate_suite_rejects_a_task_it_does_not_have(tmp_path: Path) -> None:
    run = _validate_suite(str(LITE), "--smoke", "no-such-task", "--list")
    assert run.returncode == 2
    assert run.stderr.startswith(f"validate-suite: {LITE} has no task 'no-such-task'; ")
    run = _validate_suite(str(tmp_path / "missing"))
    assert (run.returncode, run.stderr) == (
        2, f"validate-suite: {tmp_path / 'missing'} is not a folder of tasks\n")


@pytest.mark.slow
def test_validate_suite_writes_rows_with_their_fingerprint_and_machine(tmp_path: Path) -> None:
    suite = tmp_path / "mine"
    scaffold("demo", suite)
    cache = f"--mlab-cache-dir={tmp_path / 'cache'}"
    scratch = _validate_suite(str(suite), "--changed", "--scratch", "-n", "0", "--", cache)
    assert scratch.returncode == 0, scratch.stdout[-3000:]
    assert "validate-suite: demo: no row in validation.json" in scratch.stdout
    assert not (suite / VALIDATION).exists(), "--scratch left the suite as it was"
    run = _validate_suite(str(suite), "--changed", "-n", "0", "--", cache,
                          f"--mlab-report-dir={tmp_path / 'reports'}")
    assert run.returncode == 0, run.stdout[-3000:]
    row = json.loads((suite / VALIDATION).read_text("utf-8"))["demo"]
    assert row["fingerprint"] == fingerprint(fingerprint_parts(load_task(
        suite / "demo" / "task.toml")))
    assert {"cpu_model", "cpu_flags", "blas", "numpy", "torch"} <= set(row["machine"])
    listed = _validate_suite(str(suite), "--changed", "--list")
    assert listed.stdout == "validate-suite: every task's figures are current\n"
