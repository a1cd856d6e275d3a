"""Validation of the lite suite: every task is solvable, its baseline is stable, the
starter never passes, a constant prediction scores worse than the starter, and a
malformed submission is failed with its reason.

The user's version of this check, with 3 oracle trials per task:
    pytest tasks/lite --agent=oracle --agent=baseline --mlab-trials=3 -n 2
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.task import load_task

REPO = Path(__file__).parent.parent
TASKS = sorted((REPO / "tasks" / "lite").glob("*/task.toml"))
AGENTS = ("oracle", "baseline", "scripted_agents:NullAgent", "scripted_agents:MalformedAgent")
NUMBER = r"[\d.e+-]+"


def _run_suite(tmp: Path) -> dict[tuple[str, str], Any]:
    command = [
        sys.executable, "-m", "pytest", "tasks/lite", *(f"--agent={a}" for a in AGENTS),
        "-n", "2", "-p", "no:cacheprovider", f"--mlab-cache-dir={tmp / 'cache'}",
        f"--mlab-report-dir={tmp / 'reports'}", "--mlab-keep-workspaces=none",
    ]
    environ = os.environ | {"PYTHONPATH": str(REPO / "tests" / "examples")}
    run = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=2400, env=environ
    )
    (results_file,) = (tmp / "reports").glob("*/results.json")
    results = json.loads(results_file.read_text())["results"]
    return {(r["task"], r["agent"].rsplit(":", 1)[-1]): r | {"stdout": run.stdout}
            for r in results}


def _problems(manifest: Path, runs: dict[tuple[str, str], Any]) -> list[str]:
    task = load_task(manifest)
    name = task.name
    problems = []

    def check(ok: bool, what: str) -> None:
        if not ok:
            problems.append(f"{name}: {what}")

    oracle, baseline = runs[name, "oracle"], runs[name, "baseline"]
    malformed = runs[name, "MalformedAgent"]
    check(oracle["outcome"] == "passed", f"the oracle did not pass: {oracle['message']}")
    sentence = (
        rf"{name}: \w+={NUMBER} is [\d.]+% (better|worse) than baseline {NUMBER} "
        r"\(needed [\d.]+%\)"
    )
    check(
        baseline["outcome"] == "failed" and bool(re.fullmatch(sentence, baseline["message"])),
        f"the baseline agent did not fail with its sentence: {baseline['message']}",
    )
    check(baseline["message"] in baseline["stdout"], "the sentence is not in the output")
    check(
        malformed["outcome"] == "failed"
        and malformed["message"].startswith(f"{name}: invalid submission: "),
        f"a malformed submission was not rejected: {malformed['message']}",
    )
    if task.manifest.baseline.kind == "per-machine":
        check(oracle["baseline_n"] == task.manifest.baseline.runs, "baseline runs missing")
        return problems
    null = runs[name, "NullAgent"]
    check(
        null["score"] is not None and null["improvement"] < 0,
        f"a constant prediction does not score worse than the starter: {null['message']}",
    )
    record = json.loads(task.baseline_record.read_text())
    check(record["n"] >= 5, f"the baseline has only {record['n']} runs")
    check(record["sd"] <= 0.02 * abs(record["mean"]), f"the baseline is noisy: {record}")
    check(record["task_hash"] == task.content_hash(), "the task changed: record it again")
    return problems


@pytest.mark.slow
def test_every_lite_task_is_valid(tmp_path: Path) -> None:
    runs = _run_suite(tmp_path)
    assert sorted({task for task, _ in runs}) == sorted(load_task(m).name for m in TASKS)
    problems = [problem for manifest in TASKS for problem in _problems(manifest, runs)]
    assert problems == []
