"""Agents with fixed behaviour, for the plugin's own tests (loaded as module:Class)."""

from __future__ import annotations

from typing import ClassVar

from pytest_mlab.agent import AgentContext
from pytest_mlab.env import Environment


class _Scripted:
    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = False

    def __init__(self, context: AgentContext) -> None:
        self.context = context


class GarbageAgent(_Scripted):
    """Submits something the scorer must reject."""

    def run(self, env: Environment) -> str:
        env.execute("Write File", file_name="submission.txt", content="not a number")
        return "done"


class CrashingAgent(_Scripted):
    def run(self, env: Environment) -> str:
        env.execute("List Files", dir_path=".")
        raise KeyError("plan")


class LoopingAgent(_Scripted):
    """Never submits; only the step limit stops it."""

    def run(self, env: Environment) -> str:
        while True:
            env.execute("List Files", dir_path=".")


class TamperingAgent(_Scripted):
    """Runs a script that rewrites a read-only data file."""

    def run(self, env: Environment) -> str:
        script = (
            "import os\n"
            "os.chmod('data.txt', 0o644)\n"
            "open('data.txt', 'w').write('1\\n')\n"
            "open('submission.txt', 'w').write('50\\n')\n"
        )
        env.execute("Write File", file_name="tamper.py", content=script)
        env.execute("Execute Script", script_name="tamper.py")
        env.execute("Final Answer", final_answer="tampered")
        return "tampered"


class DecoyAgent(_Scripted):
    """Submits the training mean and leaves a file named like the private answers."""

    needs_solution: ClassVar[bool] = True

    def run(self, env: Environment) -> str:
        assert self.context.solution_dir is not None
        solution = (self.context.solution_dir / "train.py").read_text()
        env.execute("Write File", file_name="train.py", content=solution)
        env.execute("Write File", file_name="answer.txt", content="40.0\n")
        env.execute("Execute Script", script_name="train.py")
        env.execute("Final Answer", final_answer="decoy")
        return "decoy"


class GpuAgent(_Scripted):
    """Runs the task's gpu_probe.py, which logs the GPUs it was given and when."""

    def run(self, env: Environment) -> str:
        env.execute("Execute Script", script_name="gpu_probe.py")
        return env.execute("Execute Script", script_name=env.entry)


class EchoAgent(_Scripted):
    """Declares an LLM but never calls one: enough for collection tests."""

    uses_llm: ClassVar[bool] = True

    def run(self, env: Environment) -> str:
        return env.execute("Execute Script", script_name=env.entry)
