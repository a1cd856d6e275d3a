"""Agents with fixed behaviour, for the plugin's own tests (loaded as module:Class)."""

from __future__ import annotations

from typing import ClassVar

from pytest_mlab import AgentContext, Environment


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


class AttackingAgent(_Scripted):
    """Floods, hogs and pokes, then submits the starter's answer."""

    ATTACKS = (
        "import subprocess\nfor _ in range(300):\n    try: subprocess.Popen(['sleep', '20'])\n"
        "    except OSError: break\n",
        "b = bytearray(64 << 30)\n",
        "import os\nos.chmod('data.txt', 0o666)\nopen('data.txt', 'w').write('0')\n",
        "import sys\nsys.stdout.buffer.write(b'y' * (200 << 20))\n",
    )

    def run(self, env: Environment) -> str:
        for n, code in enumerate(self.ATTACKS):
            env.execute("Write File", file_name=f"attack{n}.py", content=code)
            env.execute("Execute Script", script_name=f"attack{n}.py")
        env.execute("Execute Script", script_name=env.entry)
        env.execute("Final Answer", final_answer="done attacking")
        return "done"


class InterruptOnceAgent(_Scripted):
    """Applies the solution, then the session is interrupted; resumed, it finishes."""

    needs_solution: ClassVar[bool] = True

    def run(self, env: Environment) -> str:
        if env.steps == 0:
            assert self.context.solution_dir is not None
            solution = (self.context.solution_dir / "train.py").read_text()
            env.execute("Write File", file_name="train.py", content=solution)
            env.execute("Write File", file_name="notes.txt", content="halfway\n")
            raise KeyboardInterrupt
        env.execute("Execute Script", script_name=env.entry)
        env.execute("Final Answer", final_answer="resumed and finished")
        return "done"


class NullAgent(_Scripted):
    """Applies the task's null/ change: a valid submission of a constant prediction."""

    needs_solution: ClassVar[bool] = True

    def run(self, env: Environment) -> str:
        assert self.context.solution_dir is not None
        null = self.context.solution_dir.parent / "null"
        if not null.is_dir():
            raise RuntimeError(f"{self.context.task} has no null/ directory")
        for path in sorted(p for p in null.rglob("*") if p.is_file()):
            name = path.relative_to(null).as_posix()
            env.execute("Write File", file_name=name, content=path.read_text())
        env.execute("Execute Script", script_name=env.entry)
        env.execute("Final Answer", final_answer="constant prediction")
        return "null"


class MalformedAgent(_Scripted):
    """Runs the starter, then garbles what it wrote (or, if nothing, the starter itself)."""

    def run(self, env: Environment) -> str:
        before = set(self._files(env, "."))
        env.execute("Execute Script", script_name=env.entry)
        written = sorted(set(self._files(env, ".")) - before) or [env.entry]
        for name in written:
            env.execute("Write File", file_name=name, content="malformed ]] {{\n")
        env.execute("Final Answer", final_answer="malformed")
        return "malformed"

    def _files(self, env: Environment, folder: str) -> list[str]:
        names = []
        for entry in env.execute("List Files", dir_path=folder).splitlines():
            path = entry if folder == "." else f"{folder}/{entry}"
            if entry.endswith("/"):
                names += self._files(env, path.rstrip("/"))
            elif entry != "(empty directory)":
                names.append(path)
        return names


class SlowAgent(_Scripted):
    """Takes three steps of about a second each, so live progress has something to show."""

    def run(self, env: Environment) -> str:
        for _ in range(3):
            env.execute("Python REPL", command="import time; time.sleep(1)")
        env.execute("Final Answer", final_answer="waited")
        return "waited"
