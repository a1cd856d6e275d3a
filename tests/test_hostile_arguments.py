"""Whatever an agent passes to ``env.execute`` comes back as an observation; only the
harness's own faults and the end of the trial propagate."""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.core.task import TrialLimits
from pytest_mlab.env.environment import Environment, StepLimitReached
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.llm import BudgetExceeded, Completion, LLMClient, Usage
from pytest_mlab.sandbox import LocalSandbox, Sandbox, SandboxSpec

PATH_ARGS = {"file_name", "dir_path", "source", "destination", "script_name", "save_name"}
# Refused for any argument: not text, or text no file name or file may hold.
NEVER_VALID: list[Any] = [
    "a\0b", "\ud800", "tail\udfff", None, 3.5, True, [], {}, b"train.py", object(),
    10**100, -(10**30), float("inf"), float("nan"),
]
# Refused as file names: too long, outside, or not a regular file.
BAD_PATHS = [
    "x" * 5000, "a/" * 3000, "n" * 300, "", "/proc/self/mem", "/dev/zero", "../../etc/passwd",
    "pipe", "to-dev-zero", "to-proc", "sub/../../outside",
]
BAD_NUMBERS: list[Any] = [-5, 0, 10**30, "abc", "9" * 100, "1e9", 2.5, float("inf"), None]
ACTION_NAMES: list[Any] = [None, 123, ["Read File"], "Read File\0", "x" * 10_000, "\ud800"]


@dataclass
class FakeLLM:
    """Answers every request with a one-line script; counts nothing but calls."""

    usage: Usage = field(default_factory=Usage)
    step: int = 1
    fail_with: Exception | None = None

    def complete(self, messages: list[dict[str, Any]], **_: Any) -> Completion:
        if self.fail_with is not None:
            raise self.fail_with
        return Completion("```\nx = 1\n```", usage=Usage(calls=1))


def make_env(tmp_path: Path, sandbox: Sandbox | None = None) -> tuple[Environment, FakeLLM]:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "train.py").write_text("print('trained')\n")
    (root / "data.csv").write_text("a,b\n")
    os.mkfifo(root / "pipe")
    with contextlib.suppress(PermissionError):  # root may make a device node
        os.mknod(root / "zero", 0o666 | stat.S_IFCHR, os.makedev(1, 5))
    (root / "to-dev-zero").symlink_to("/dev/zero")
    (root / "to-proc").symlink_to("/proc/self/environ")
    llm = FakeLLM()
    env = Environment(
        research_problem="x", entry="train.py", workspace=Workspace(root, {"data.csv": "h"}),
        sandbox=sandbox or LocalSandbox(SandboxSpec(root)), llm=cast(LLMClient, llm),
        limits=TrialLimits(max_steps=100_000, max_time=3600, script_timeout=30),
        ask=lambda question: "no help",
    )
    return env, llm


def benign(env: Environment, action: str) -> dict[str, Any]:
    parameters = env.actions[action].parameters
    return {arg: 1 if arg in env.actions[action].integers else
            ("train.py" if arg in PATH_ARGS - {"dir_path", "destination", "save_name"}
             else "." if arg == "dir_path" else "copy.py" if arg in PATH_ARGS else "hello")
            for arg in parameters}


def test_every_action_turns_hostile_arguments_into_observations(tmp_path: Path) -> None:
    env, _ = make_env(tmp_path)
    calls = 0
    for action, spec in env.actions.items():
        for arg in spec.parameters:
            values = list(NEVER_VALID)
            values += BAD_NUMBERS if arg in spec.integers else []
            values += BAD_PATHS if arg in PATH_ARGS else []
            values += ["zero"] if arg in PATH_ARGS and (env.workspace.root / "zero").exists() \
                else []
            for value in values:
                observation = env.execute(action, **(benign(env, action) | {arg: value}))
                calls += 1
                assert observation.startswith("Invalid action: "), (action, arg, value)
                assert len(observation) < 2_000, (action, arg)
        for extra in ("extra", "action", "self"):
            assert env.execute(action, **benign(env, action), **{extra: "x"}).startswith(
                f"Invalid action: {action} takes")
        if spec.parameters:
            assert env.execute(action).startswith(f"Invalid action: {action} takes")
        env.final_answer = None  # a benign Final Answer would end the trial
    for name in ACTION_NAMES:
        observation = env.execute(name)
        assert observation.startswith("Invalid action: There is no action"), name
        assert len(observation) < 1_000
    assert calls > 300 and env.steps == len(env.steps_taken)
    # The environment works as before.
    root = env.workspace.root
    assert env.execute("Write File", file_name="ok.txt", content="fine") == (
        "Wrote 4 characters to ok.txt.")
    assert env.execute("Read File", file_name="ok.txt") == "fine"
    assert "trained" in env.execute("Execute Script", script_name="train.py")
    assert (root / "train.py").read_text() == "print('trained')\n"
    assert (root / "data.csv").read_text() == "a,b\n"
    assert not (tmp_path / "outside").exists()


@pytest.mark.parametrize(
    ("action", "args", "expected"),
    [
        ("Read File", {"file_name": "locked.txt"}, "Read File failed: Permission denied."),
        ("Copy File", {"source": "train.py", "destination": "train.py"}, "is the file itself"),
        ("Write File", {"file_name": "sub", "content": "x"}, "sub is a directory."),
        ("Write File", {"file_name": "pipe", "content": "x"}, "pipe is not a regular file."),
        ("Append File", {"file_name": "pipe", "content": "x"}, "pipe is not a regular file."),
        ("Inspect Script Lines",
         {"script_name": "train.py", "start_line_number": "2", "end_line_number": 10**19},
         "end_line_number is too large"),
        ("Edit Script (AI)",
         {"script_name": "train.py", "edit_instruction": "x", "save_name": "pipe"},
         "pipe is not a regular file."),
    ],
)
def test_what_the_file_system_refuses_is_explained(
    tmp_path: Path, action: str, args: dict[str, Any], expected: str
) -> None:
    if os.geteuid() == 0 and action == "Read File":
        pytest.skip("root reads a file whatever its mode")
    env, _ = make_env(tmp_path)
    locked = env.workspace.root / "locked.txt"
    locked.write_text("secret")
    locked.chmod(0)
    observation = env.execute(action, **args)
    assert observation.startswith("Invalid action: ") and expected in observation


class BrokenSandbox:
    isolation = "none"

    def run(self, argv: Any, timeout: float) -> Any:
        raise SandboxError("bwrap vanished")


def test_harness_faults_and_the_end_of_the_trial_still_propagate(tmp_path: Path) -> None:
    env, llm = make_env(tmp_path, sandbox=cast(Sandbox, BrokenSandbox()))
    with pytest.raises(SandboxError):
        env.execute("Execute Script", script_name="train.py")
    llm.fail_with = BudgetExceeded("spent")
    with pytest.raises(BudgetExceeded):
        env.execute("Reflection", things_to_reflect_on="progress")
    env.limits = TrialLimits(max_steps=env.steps, max_time=60, script_timeout=30)
    with pytest.raises(StepLimitReached):
        env.execute("Read File", file_name="\0")
