from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mlab.env import (
    AlreadySubmitted,
    Environment,
    Limits,
    StepLimitReached,
    TimeLimitReached,
)
from pytest_mlab.sandbox import LocalSandbox
from pytest_mlab.trace import Trace
from pytest_mlab.workspace import Workspace


def make_env(tmp_path: Path, **limits: float) -> Environment:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "train.py").write_text("print('trained')\n")
    (root / "data.csv").write_text("a,b\n")
    (tmp_path / "secret.txt").write_text("the answer")
    defaults = {"max_steps": 20, "max_time": 60.0, "script_timeout": 30.0}
    return Environment(
        research_problem="do better", entry="train.py",
        workspace=Workspace(root, {"data.csv": "hash"}), sandbox=LocalSandbox(root),
        limits=Limits(**(defaults | limits)), trace=Trace(tmp_path / "trace.jsonl"),  # type: ignore[arg-type]
    )


def test_the_actions_work_and_every_step_is_traced(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    assert env.execute("List Files", dir_path=".") == "data.csv\ntrain.py"
    assert env.execute("Write File", file_name="sub/new.py", content="print(1)") == (
        "Wrote 8 characters to sub/new.py."
    )
    assert env.execute("Read File", file_name="sub/new.py") == "print(1)"
    observation = env.execute("Execute Script", script_name="train.py")
    assert observation == "The script ran to completion. Output:\ntrained"
    env.execute("Final Answer", final_answer="done")
    assert env.final_answer == "done" and env.steps == 5
    steps = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert [s["action"] for s in steps] == [
        "List Files", "Write File", "Read File", "Execute Script", "Final Answer"
    ]
    assert steps[3]["exit_code"] == 0 and steps[3]["ended"] >= steps[3]["started"]
    with pytest.raises(AlreadySubmitted):
        env.execute("List Files", dir_path=".")


@pytest.mark.parametrize(
    ("action", "args", "observation"),
    [
        ("Fly", {}, "Invalid action: There is no action 'Fly'. Valid actions: List Files, "),
        ("Read File", {"file_name": "../secret.txt"}, "lies outside the workspace"),
        ("Read File", {"file_name": "/etc/passwd"}, "is not a path relative to"),
        ("Read File", {"path": "train.py"}, "Read File takes file_name; got path."),
        ("Read File", {"file_name": 3}, "file_name must be a string"),
        ("Write File", {"file_name": "data.csv", "content": ""}, "data.csv is read-only."),
        ("Execute Script", {"script_name": "data.csv"}, "is not a Python script"),
    ],
)
def test_invalid_requests_come_back_as_observations(
    tmp_path: Path, action: str, args: dict[str, object], observation: str
) -> None:
    env = make_env(tmp_path)
    assert observation in env.execute(action, **args)
    assert env.steps == 1


def test_a_symlink_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.workspace.root / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert "lies outside the workspace" in env.execute("Read File", file_name="link.txt")


def test_the_step_limit_ends_the_trial(tmp_path: Path) -> None:
    env = make_env(tmp_path, max_steps=2)
    env.execute("List Files", dir_path=".")
    env.execute("List Files", dir_path=".")
    with pytest.raises(StepLimitReached):
        env.execute("List Files", dir_path=".")


def test_a_script_gets_no_more_than_the_time_left(tmp_path: Path) -> None:
    env = make_env(tmp_path, max_time=1.5)
    (env.workspace.root / "slow.py").write_text("import time\ntime.sleep(30)\n")
    observation = env.execute("Execute Script", script_name="slow.py")
    assert observation.startswith("The script was stopped after 1 seconds.")
    with pytest.raises(TimeLimitReached):
        env.execute("List Files", dir_path=".")


def test_long_output_keeps_head_and_tail(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    loud = "print('start'); print('x' * 50000); print('end')\n"
    (env.workspace.root / "loud.py").write_text(loud)
    observation = env.execute("Execute Script", script_name="loud.py")
    assert "start" in observation and observation.rstrip().endswith("end")
    assert "characters elided" in observation and len(observation) < 11_000
