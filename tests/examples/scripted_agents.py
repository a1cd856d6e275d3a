"""Agents with fixed behaviour, for the plugin's own tests (loaded as module:Class)."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import ClassVar

from hostile import SHADOWED, probe_source, shadow_source

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


class WaitingAgent(_Scripted):
    """Says it has started (a file in $MLAB_PROBE_DIR naming its session's process, the
    session's parent, the run and the session's niceness), then takes 20 steps of
    $MLAB_WAIT_SECONDS seconds each (default 1), as many as the task allows, or fewer once
    a file ``release`` is beside that folder: a trial to find running, or to kill."""

    def run(self, env: Environment) -> str:
        probes = Path(os.environ["MLAB_PROBE_DIR"])
        # Written beside the folder and moved in, so that it appears whole.
        written = probes.parent / f".{uuid.uuid4().hex}"
        written.write_text(f"{os.getpid()} {os.getppid()} {os.environ.get('MLAB_RUN_ID')} "
                           f"{os.nice(0)}")
        written.replace(probes / written.name[1:])
        seconds = float(os.environ.get("MLAB_WAIT_SECONDS", "1"))
        for _ in range(20):
            if (probes.parent / "release").exists():
                break
            env.execute("Python REPL", command=f"import time; time.sleep({seconds})")
        env.execute("Final Answer", final_answer="waited")
        return "waited"


def _log(observation: str) -> None:
    """Append an observation to $MLAB_TEST_LOG (JSON lines), for the test to read."""
    with open(os.environ["MLAB_TEST_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(observation) + "\n")


class ScriptsAgent(_Scripted):
    """Runs each script of $MLAB_TEST_SCRIPTS (a JSON list of Python sources) in turn,
    logging what it saw, then submits the workspace as it is."""

    def run(self, env: Environment) -> str:
        scripts = json.loads(Path(os.environ["MLAB_TEST_SCRIPTS"]).read_text())
        for n, code in enumerate(scripts):
            env.execute("Write File", file_name=f"step{n}.py", content=code)
            _log(env.execute("Execute Script", script_name=f"step{n}.py"))
        env.execute("Final Answer", final_answer="scripts run")
        return "done"


class TypedAnswerAgent(_Scripted):
    """Writes submission.txt by hand, through Write File, from the answers a test planted at
    $MLAB_TEST_ANSWER; the starter is left as it was."""

    def run(self, env: Environment) -> str:
        answer = Path(os.environ["MLAB_TEST_ANSWER"]).read_text()
        env.execute("Write File", file_name="submission.txt", content=answer)
        env.execute("Final Answer", final_answer="wrote the answer by hand")
        return "done"


class ProbeAgent(_Scripted):
    """Writes a hostile train.py (tests/examples/hostile.py) aimed at $MLAB_TEST_PROBE and
    a module named like one the scorer imports, runs the probe once as a script, gives
    its daemon time to act, and submits: the scorer then runs the probe again."""

    def run(self, env: Environment) -> str:
        targets = json.loads(os.environ["MLAB_TEST_PROBE"])
        targets["workspace"] = str(env.workspace.root)
        env.execute("Write File", file_name="train.py", content=probe_source(targets))
        env.execute("Write File", file_name=f"{SHADOWED}.py", content=shadow_source(targets))
        _log(env.execute("Execute Script", script_name="train.py"))
        env.execute("Python REPL", command="import time; time.sleep(5)")
        _log(env.execute("List Files", dir_path="."))
        env.execute("Final Answer", final_answer="probed")
        return "probed"


class _Resubmits(_Scripted):
    """Runs the starter, then a script that tampers with what it wrote, then submits."""

    SCRIPT: ClassVar[str] = ""

    def run(self, env: Environment) -> str:
        env.execute("Execute Script", script_name=env.entry)
        env.execute("Write File", file_name="tamper.py", content=self.SCRIPT)
        _log(env.execute("Execute Script", script_name="tamper.py"))
        env.execute("Final Answer", final_answer="resubmitted")
        return "resubmitted"


class AnswersLinkAgent(_Resubmits):
    """submission.csv becomes a link to the answers, by way of the scorer's folder."""

    SCRIPT = ("import os\nos.remove('submission.csv')\n"
              "os.symlink('/proc/self/cwd/private/answers.csv', 'submission.csv')\n")


class MemoryLinkAgent(_Resubmits):
    """submission.csv becomes a link to the reading process's own memory."""

    SCRIPT = ("import os\nos.remove('submission.csv')\n"
              "os.symlink('/proc/self/mem', 'submission.csv')\n")


class FifoAgent(_Resubmits):
    """submission.csv becomes a FIFO that nobody writes."""

    SCRIPT = "import os\nos.remove('submission.csv')\nos.mkfifo('submission.csv')\n"


class HardLinkAgent(_Resubmits):
    """submission.csv becomes a hard link shared with another file."""

    SCRIPT = ("import os\nos.rename('submission.csv', 'keep.csv')\n"
              "os.link('keep.csv', 'submission.csv')\n")


class OversizeAgent(_Resubmits):
    """Leaves 2 MB beside the submission of a task that scores at most 1 MB."""

    SCRIPT = "open('big.bin', 'wb').write(b'0' * (2 << 20))\n"


class DeviceAgent(_Resubmits):
    """Tries to make a device node the scorer would read."""

    SCRIPT = ("import os, stat\n"
              "os.mknod('zero.csv', stat.S_IFCHR | 0o666, os.makedev(1, 5))\n")


class HandWrittenAgent(_Scripted):
    """Reads the answers planted in the workspace and types a perfect submission.csv in
    through Write File, never running a script."""

    def run(self, env: Environment) -> str:
        rows = env.execute("Read File", file_name="answers.csv").split()[1:]
        typed = "".join(f"{i},{float(v):g}\n" for i, v in (row.split(",") for row in rows))
        env.execute("Write File", file_name="submission.csv", content="id,value\n" + typed)
        env.execute("Final Answer", final_answer="wrote the answers by hand")
        return "by hand"
