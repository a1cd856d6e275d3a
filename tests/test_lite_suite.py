"""The lite suite end to end: every task is solvable, and the starter never passes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent
TASKS = sorted(p.parent.name for p in (REPO / "tasks" / "lite").glob("*/task.toml"))


@pytest.mark.slow
def test_the_oracle_passes_every_task_and_the_baseline_fails_every_task(tmp_path: Path) -> None:
    command = [
        sys.executable, "-m", "pytest", "tasks/lite", "--agent=oracle", "--agent=baseline",
        "-n", "2", "-p", "no:cacheprovider", f"--mlab-cache-dir={tmp_path / 'cache'}",
        f"--mlab-report-dir={tmp_path / 'reports'}",
    ]
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1800)
    (results_file,) = (tmp_path / "reports").glob("*/results.json")
    results = json.loads(results_file.read_text())["results"]
    outcomes = {(r["task"], r["agent"]): r for r in results}
    assert sorted(outcomes) == sorted((t, a) for t in TASKS for a in ("baseline", "oracle"))
    for task in TASKS:
        oracle, baseline = outcomes[task, "oracle"], outcomes[task, "baseline"]
        assert oracle["outcome"] == "passed", oracle["message"]
        assert baseline["outcome"] == "failed", baseline["message"]
        number = r"[\d.e+-]+"
        pattern = (
            rf"{task}: \w+={number} is [\d.]+% (better|worse) than baseline {number} "
            r"\(needed \d+%\)"
        )
        assert re.fullmatch(pattern, baseline["message"]), baseline["message"]
        assert baseline["message"] in run.stdout
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.stdout[-3000:] + run.stderr[-3000:]
