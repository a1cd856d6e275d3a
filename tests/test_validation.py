"""--mlab-validate: a task is checked for noise, shortcuts and solvability, and its suite's
table is written from what was measured; new-task makes a task that passes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.cli.new_task import scaffold
from pytest_mlab.core.results import TrialResult
from pytest_mlab.trial.validation import Validation, _check_heuristic


@pytest.fixture
def demo(pytester: pytest.Pytester) -> Path:
    return scaffold("demo", pytester.path / "tasks")


def _validate(pytester: pytest.Pytester, mlab_args: list[str]) -> pytest.RunResult:
    return pytester.runpytest_subprocess("tasks", "--mlab-validate", *mlab_args)


def test_a_new_task_validates_and_its_records_are_written(
    pytester: pytest.Pytester, demo: Path, mlab_args: list[str]
) -> None:
    made = subprocess.run([sys.executable, "-m", "pytest_mlab", "new-task", "demo",
                           "--suite", str(pytester.path / "other")],
                          capture_output=True, text=True, check=True)
    assert "check it with: pytest" in made.stdout
    run = _validate(pytester, mlab_args)
    run.assert_outcomes(passed=1)
    record = json.loads((demo / "baseline.json").read_text())
    assert record["n"] == 5 and len(set(record["scores"])) == 5  # five seeds, five scores
    assert record["command"] == "pytest tasks/demo --mlab-validate"
    kept = json.loads((demo.parent / "validation.json").read_text())["demo"]
    assert kept["problems"] == [] and set(kept["heuristics"]) == {"training-mean"}
    row = (demo.parent / "README.md").read_text().splitlines()[-1]
    assert row.startswith("| demo |") and "training-mean: " in row


@pytest.mark.parametrize(("break_it", "problem"), [
    (lambda task: shutil.copytree(task / "solution", task / "heuristics" / "cheat"),
     "the heuristic cheat clears the bar"),
    (lambda task: shutil.copytree(task / "solution", task / "null", dirs_exist_ok=True),
     "the null submission passes"),
    (lambda task: (task / "task.toml").write_text(
        (task / "task.toml").read_text().replace('name = "demo"',
                                                 'name = "demo"\nthreshold = 0.01')),
     "the bar (1.0%) is only 0.7 baseline sd above the mean"),
    (lambda task: shutil.copytree(task / "env", task / "solution", dirs_exist_ok=True),
     "the solution failed 3 of 3 runs"),
    (lambda task: shutil.copytree(task / "heuristics" / "training-mean",
                                  task / "heuristics" / "recipe"),
     "the task has a ladder but no heuristics/seed-pick, heuristics/one-number, "
     "heuristics/one-line: a ladder has every rung"),
    (lambda task: shutil.copytree(task / "solution", task / "heuristics" / "one-line"),
     "the one-line rung (the starter with one line changed) gains *"),
])
def test_each_rule_fails_the_task_with_its_sentence(
    pytester: pytest.Pytester, demo: Path, mlab_args: list[str],
    break_it: Callable[[Path], Any], problem: str,
) -> None:
    break_it(demo)
    run = _validate(pytester, mlab_args)
    run.assert_outcomes(failed=1)
    run.stdout.fnmatch_lines([f"*demo: *{problem}*"])
    assert not (demo / "baseline.json").exists()  # an unsound task records nothing


def test_trials_see_their_seed_and_record_it(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    pytester.makeconftest("""
        import pytest

        class SeedAgent:
            uses_llm = False
            needs_solution = False

            def __init__(self, context):
                pass

            def run(self, env):
                code = "import os; print(os.environ['MLAB_SEED'])"
                seen = env.execute("Python REPL", command=code)
                env.execute("Write File", file_name="submission.txt",
                            content=seen.split()[-1] + "\\n")
                env.execute("Final Answer", final_answer="done")
                return "done"
    """)
    pytester.runpytest("tasks", "--agent=conftest:SeedAgent", "--mlab-trials=2", *mlab_args)
    records = sorted(read_results(), key=lambda r: r["trial"])
    assert [r["seed"] for r in records] == [1000, 1001]
    # The seed the script printed was what it wrote: error = |seed - answer| + 1.
    expected = [round(abs(seed - 49.95) + 1) for seed in (1000, 1001)]
    assert [round(r["score"]) for r in records] == expected
    recording = json.loads(next(pytester.path.glob("baseline-runs/*/results.json")).read_text())
    assert sorted(r["seed"] for r in recording["results"]) == [0, 1]


@pytest.mark.parametrize(("score", "beaten"), [(0.40, False), (0.37, False), (0.30, True)])
def test_a_heuristic_beats_the_starter_only_beyond_its_noise(score: float, beaten: bool) -> None:
    # A timing task (seconds, lower is better): starter 0.38 +- 0.01 over its seeds.
    check = Validation("t", "", "seconds", "lower", 0.9)
    result = TrialResult(nodeid="t", task="t", agent="oracle", llm=None, trial=0,
                         metric="seconds", direction="lower", outcome="failed",
                         success=False, threshold=0.9, score=score)
    _check_heuristic(check, "loop-reorder", result, 0.38, 0.01)
    assert check.heuristics == {"loop-reorder": score}
    assert check.problems == ([
        "the starter (seconds=0.38 ± 0.01) does not beat the heuristic loop-reorder (0.3)"]
        if beaten else [])
