"""The run list of the browser over 50 and 200 runs of 36 trials each (3 tasks x 4 agents x 3
trials, 1 in 9 an error), as a user who keeps every run meets it: the list's page and its
answer, on the first visit and again, timed in wall and server CPU time. The growth from 50
to 200 runs is checked on CPU time: at most 6 (4 is linear)."""

from __future__ import annotations

import time
import urllib.request
from pathlib import Path

from browser_pages import cpu_seconds, view_server

from pytest_mlab.core.results import RunInfo, RunResults, TrialResult
from pytest_mlab.core.run_files import RunFiles

LIST = ["/", "/app.js", "/tables.js", "/app.css", "/api/runs"]
TASKS, AGENTS, TRIALS = ("house-price", "titanic", "parkinsons"), ("oracle", "baseline",
                                                                   "mine", "theirs"), 3


def _results(copy: int) -> list[TrialResult]:
    made = []
    for n, (task, agent, trial) in enumerate(
            (t, a, k) for t in TASKS for a in AGENTS for k in range(TRIALS)):
        errored = (n + copy) % 9 == 0
        improvement = ((n * 7 + copy) % 13) / 40
        made.append(TrialResult(
            nodeid=f"tasks/{task}/task.toml::{task}[{agent}-t{trial}]", task=task, agent=agent,
            llm=None if agent in ("oracle", "baseline") else "gpt-4o-mini", trial=trial,
            metric="mae", direction="lower",
            outcome="error" if errored else "passed" if improvement >= 0.1 else "failed",
            success=not errored and improvement >= 0.1,
            score=None if errored else 50.0 * (1 - improvement), baseline_mean=50.0,
            improvement=None if errored else improvement, threshold=0.1,
            error_class="AgentCrashed" if errored else None, steps=5, seconds=30.0,
            cost=0.01 * (agent not in ("oracle", "baseline"))))
    return made


def _runs(root: Path, count: int) -> Path:
    for copy in range(count):
        run_id = f"2026-11-{1 + copy % 28:02d}-run{copy:03d}"
        day = f"2026-11-{1 + copy % 28:02d}"
        info = RunInfo(run_id=run_id, started=f"{day}T10:{copy % 60:02d}:00",
                       finished=f"{day}T11:{copy % 60:02d}:00",
                       command=["pytest"], machine="bench", pytest_mlab_version="0",
                       selected=36)
        RunResults(run=info, results=_results(copy)).write(RunFiles.of(root, run_id).results)
    return root


def _visit(root: Path) -> tuple[float, float, float, float]:
    """First visit and again: wall and server CPU seconds of the list's requests."""
    timed = []
    with view_server(root) as (base, pid):
        for _ in range(2):
            start, cpu = time.perf_counter(), cpu_seconds(pid)
            for path in LIST:
                with urllib.request.urlopen(base + path, timeout=300) as answer:
                    assert answer.status == 200
                    answer.read()
            timed.append((time.perf_counter() - start, cpu_seconds(pid) - cpu))
    (first, first_cpu), (again, again_cpu) = timed
    return first, again, first_cpu, again_cpu


def test_the_run_list_of_200_runs_grows_linearly(tmp_path: Path) -> None:
    small = _visit(_runs(tmp_path / "50", 50))
    large = _visit(_runs(tmp_path / "200", 200))
    for name, figures in (("50 runs", small), ("200 runs", large)):
        first, again, first_cpu, again_cpu = figures
        print(f"run list, {name}: first visit {first:.2f} s ({first_cpu:.2f} s server CPU), "
              f"again {again:.2f} s ({again_cpu:.2f} s)")
    growth = large[2] / max(small[2], 0.01)
    print(f"growth from 50 to 200 runs, first visit's CPU: {growth:.1f}")
    assert growth <= 6, f"the run list grew {growth:.1f} times for 4 times the runs"
