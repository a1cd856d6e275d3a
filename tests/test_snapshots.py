from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.snapshots import manifest_steps, read_manifest, restore
from pytest_mlab.env.snapshotter import Snapshotter


def test_unchanged_files_cost_nothing_and_restore_is_exact(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "a.txt").write_text("a")
    (workspace / "sub" / "b.txt").write_text("b")
    (workspace / "data.csv").write_text("protected")
    objects, manifests = tmp_path / "objects", tmp_path / "manifests"
    snapshots = Snapshotter(objects, manifests, workspace, {"data.csv": "hash"})
    first = snapshots.take(0)
    assert set(first) == {"a.txt", "sub/b.txt"}
    stored = sorted(objects.rglob("*"))
    assert snapshots.take(1) == first
    assert sorted(objects.rglob("*")) == stored
    (workspace / "a.txt").write_text("changed")
    (workspace / "new.txt").write_text("b")  # same content as sub/b.txt: no new object
    third = snapshots.take(2)
    assert len([p for p in objects.rglob("*") if p.is_file()]) == 3
    assert manifest_steps(manifests) == [0, 1, 2]
    restore(objects, read_manifest(manifests, 0), workspace, {"data.csv": "hash"})
    assert (workspace / "a.txt").read_text() == "a" and not (workspace / "new.txt").exists()
    assert (workspace / "data.csv").read_text() == "protected"
    assert third["new.txt"] == third["sub/b.txt"]


def test_scores_over_steps(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    pytester.runpytest(
        "tasks", "--agent=oracle", "--mlab-score-steps=2", *mlab_args
    ).assert_outcomes(passed=1)
    (record,) = read_results()
    steps = [(s["step"], s["score"] is None) for s in record["step_scores"]]
    assert steps == [(0, True), (2, False), (3, False)]
    assert record["step_scores"][0]["invalid"] == "submission.txt is missing"
    assert record["step_scores"][-1]["score"] == record["score"]


def test_an_interrupted_trial_resumes_from_its_last_snapshot(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    agent = "--agent=scripted_agents:InterruptOnceAgent"
    first = pytester.runpytest_subprocess("tasks", agent, *mlab_args)
    assert first.ret == pytest.ExitCode.INTERRUPTED
    (trace,) = pytester.path.glob("reports/*/traces/*.jsonl")
    assert len(trace.read_text().splitlines()) == 2
    pytester.runpytest_subprocess(
        "tasks", agent, "--mlab-resume=last", *mlab_args
    ).assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["resumed_from"] == 2 and record["steps"] == 4
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [s["step"] for s in steps] == [1, 2, 3, 4]
    assert steps[2]["action"] == "Execute Script" and steps[2]["exit_code"] == 0
    # Resuming a finished run re-runs nothing: the stored result stands.
    pytester.runpytest_subprocess(
        "tasks", agent, "--mlab-resume=last", *mlab_args
    ).assert_outcomes(passed=1)
    assert len(trace.read_text().splitlines()) == 4


def test_resuming_an_unknown_run_is_a_usage_error(
    pytester: pytest.Pytester, mlab_args: list[str]
) -> None:
    result = pytester.runpytest("--mlab-resume=nope", *mlab_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mlab-resume: no run 'nope' with traces under *"])


def test_each_step_snapshot_follows_what_the_action_may_change(tmp_path: Path) -> None:
    from pytest_mlab.core.task import TrialLimits
    from pytest_mlab.env.environment import Environment
    from pytest_mlab.env.workspace import Workspace
    from pytest_mlab.sandbox import LocalSandbox, SandboxSpec

    root = tmp_path / "ws"
    root.mkdir()
    (root / "train.py").write_text("open('out.txt', 'w').write('made by a script')\n")
    manifests = tmp_path / "manifests"
    env = Environment(
        research_problem="x", entry="train.py", workspace=Workspace(root, {}),
        sandbox=LocalSandbox(SandboxSpec(root)),
        limits=TrialLimits(max_steps=10, max_time=60, script_timeout=30),
        snapshots=Snapshotter(tmp_path / "objects", manifests, root, {}),
    )
    env.execute("Write File", file_name="notes/a.txt", content="a")
    env.execute("Undo Edit Script", script_name="notes/a.txt")
    env.execute("Execute Script", script_name="train.py")
    env.execute("Read File", file_name="out.txt")
    files = [sorted(read_manifest(manifests, step)) for step in manifest_steps(manifests)]
    assert files == [
        ["train.py"], ["notes/a.txt", "train.py"], ["train.py"],
        ["out.txt", "train.py"], ["out.txt", "train.py"],
    ]
