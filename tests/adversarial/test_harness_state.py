"""The harness's state (measured baselines and prepared data in the cache, results.json,
traces and snapshots, task folders with their baseline.json, other trials' workspaces)
is out of reach of everything sandboxed, at the agent's turn and at scoring time, and no
daemon started by a script lives on to reach it later, not even after pytest exits.
The harness's own file actions do not wait on a FIFO a script left."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, ProbeWorld, blocked, nothing_left, run_script
from pytest_mlab.env.environment import Environment


def _digests(root: Path) -> dict[str, str]:
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file()}


def _sources(task: Path) -> set[str]:
    """The task's files, but the bytecode its scripts leave when they are loaded."""
    return {name for name in _digests(task) if "__pycache__" not in name}


@pytest.mark.slow
def test_no_daemon_reaches_the_harness_state_during_or_after_the_run(
    pytester: pytest.Pytester, probe_world: ProbeWorld, kind_args: list[str],
    sandbox_kind: str, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    run = pytester.runpytest_subprocess(
        "tasks", "--agent=scripted_agents:ProbeAgent", "--mlab-trials=2", *kind_args,
        *mlab_args, *probe_world.harness_args(), timeout=600,
    )
    run.assert_outcomes(failed=2)
    reports = probe_world.root / "reports"
    state = {"reports": _digests(reports), "cache": _digests(probe_world.root / "cache"),
             "task": _digests(probe_world.task)}
    records = read_results()
    assert [r["isolation"] for r in records] == [sandbox_kind] * 2
    assert all(str(r["message"]).startswith("probe: invalid submission: The call to check "
                                            "failed (RuntimeError: probe:") for r in records)
    # At the agent's turn, each trial's probe got nothing, and its daemon was gone
    # before the next step.
    script, listing, *rest = probe_world.observations()
    assert len(rest) == 2
    for output, files in ((script, listing), tuple(rest)):
        assert "ran to completion" in output and probe_world.canary not in output
        blocked(json.loads(output.split("probe:", 1)[1]))
        assert "daemon-alive.txt" not in files and "train.py" in files
    nothing_left(probe_world)
    # Nothing changed after pytest exited: no result, trace, snapshot, measured baseline,
    # prepared data or task file.
    assert state == {"reports": _digests(reports), "cache": _digests(probe_world.root / "cache"),
                     "task": _digests(probe_world.task)}
    assert _sources(probe_world.task) == _sources(EXAMPLES / "probe")
    (measured,) = (probe_world.root / "cache" / "baselines").glob("probe-*.json")
    scores = json.loads(measured.read_text())["scores"]
    assert [r["baseline_mean"] for r in records] == [scores[0]] * 2
    for trace in reports.glob("*/traces/*.jsonl"):
        assert all(json.loads(line)["action"] for line in trace.read_text().splitlines())


def test_a_fifo_left_by_a_script_does_not_hold_up_the_harness(env: Environment) -> None:
    observation = run_script(env, "import os\nos.mkfifo('notes.txt')\nos.symlink('notes.txt', "
                                  "'link.txt')\n")
    assert "ran to completion" in observation
    started = time.monotonic()
    for action, args in [
        ("Write File", {"file_name": "notes.txt", "content": "x"}),
        ("Append File", {"file_name": "link.txt", "content": "x"}),
        ("Copy File", {"source": "train.py", "destination": "notes.txt"}),
        ("Read File", {"file_name": "notes.txt"}),
    ]:
        observation = env.execute(action, **args)
        assert observation.startswith("Invalid action"), (action, observation)
        assert "not a regular file" in observation or "not a file" in observation
    assert time.monotonic() - started < 5
    assert os.path.exists(env.workspace.root / "notes.txt")
    # The trial goes on.
    assert "ran to completion" in run_script(env, "print('still here')", "next.py")
