from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_mlab.core.task import TrialLimits
from pytest_mlab.core.trace import Trace
from pytest_mlab.env.actions.options import ActionOptions
from pytest_mlab.env.environment import (
    AlreadySubmitted,
    Environment,
    StepLimitReached,
    TimeLimitReached,
)
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec


def make_env(tmp_path: Path, **limits: float) -> Environment:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "train.py").write_text("print('trained')\n")
    (root / "data.csv").write_text("a,b\n")
    (tmp_path / "secret.txt").write_text("the answer")
    defaults = {"max_steps": 20, "max_time": 60.0, "script_timeout": 30.0}
    return Environment(
        research_problem="do better", entry="train.py",
        workspace=Workspace(root, {"data.csv": "hash"}), sandbox=LocalSandbox(SandboxSpec(root)),
        limits=TrialLimits(**(defaults | limits)), trace=Trace(tmp_path / "trace.jsonl"),  # type: ignore[arg-type]
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
        ("Execute Script", {"script_name": "nothing.py"}, "is not a file in the workspace"),
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
    env.action_options = ActionOptions(script_output="both")  # the paper's clips nothing
    loud = "print('start'); print('x' * 50000); print('end')\n"
    (env.workspace.root / "loud.py").write_text(loud)
    observation = env.execute("Execute Script", script_name="loud.py")
    assert "start" in observation and observation.rstrip().endswith("end")
    assert "characters elided" in observation and len(observation) < 11_000


def test_append_copy_and_undo_restore_each_earlier_version(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    env.execute("Append File", file_name="train.py", content="print('more')\n")
    env.execute("Copy File", source="train.py", destination="backup/train.py")
    assert (env.workspace.root / "backup" / "train.py").read_text() == (
        "print('trained')\nprint('more')\n"
    )
    observation = env.execute("Undo Edit Script", script_name="train.py")
    assert observation.startswith("Undid the last edit of train.py")
    assert (env.workspace.root / "train.py").read_text() == "print('trained')\n"
    assert "no earlier version" in env.execute("Undo Edit Script", script_name="train.py")
    env.execute("Undo Edit Script", script_name="backup/train.py")
    assert not (env.workspace.root / "backup" / "train.py").exists()
    assert "read-only" in env.execute("Copy File", source="train.py", destination="data.csv")


def test_inspect_script_lines_numbers_at_most_a_hundred_lines(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.workspace.root / "long.py").write_text("".join(f"x{n} = {n}\n" for n in range(1, 201)))
    observation = env.execute(
        "Inspect Script Lines", script_name="long.py", start_line_number="5", end_line_number=7
    )
    assert observation.splitlines() == [
        "long.py has 200 lines; lines 5-7:", "    5  x5 = 5", "    6  x6 = 6", "    7  x7 = 7"
    ]
    too_many = env.execute(
        "Inspect Script Lines", script_name="long.py", start_line_number=1, end_line_number=101
    )
    assert "at most 100 lines" in too_many
    assert "whole number" in env.execute(
        "Inspect Script Lines", script_name="long.py", start_line_number="one", end_line_number=2
    )


def test_the_python_repl_runs_in_the_sandbox_not_the_harness(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    observation = env.execute("Python REPL", command="import os; print(os.getpid(), os.getcwd())")
    pid, cwd = observation.splitlines()[-1].split()
    assert int(pid) != os.getpid() and Path(cwd) == env.workspace.root.resolve()


def test_request_help_is_offered_only_in_interactive_runs(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    assert "Request Help" not in env.actions
    assert "There is no action" in env.execute("Request Help", request="hint?")
    asked: list[str] = []
    helped = Environment(
        research_problem="x", entry="train.py", workspace=env.workspace, sandbox=env.sandbox,
        limits=env.limits, ask=lambda question: asked.append(question) or "try ridge",
    )
    assert helped.execute("Request Help", request="hint?") == "try ridge"
    assert asked == ["hint?"]


def test_every_action_has_a_schema_and_a_description(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    names = set(env.actions)
    assert names == {
        "List Files", "Read File", "Write File", "Append File", "Copy File", "Undo Edit Script",
        "Execute Script", "Python REPL", "Inspect Script Lines", "Final Answer",
    }
    for action in env.actions.values():
        schema = action.json_schema()
        assert schema["name"] == action.name
        assert schema["parameters"]["required"] == list(action.parameters)
        assert action.name in action.describe()
    inspect = env.actions["Inspect Script Lines"].json_schema()["parameters"]["properties"]
    assert inspect["start_line_number"]["type"] == "integer"
