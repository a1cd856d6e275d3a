"""Call a function of the workspace's train.py in a child process, timed by the scorer.

The child only sees input files and writes output files; the parent owns the clock
and checks the outputs, so nothing the workspace prints, writes or patches can change
the measured time or the verdict. Every way the child can fail (a crash, a stall, a
line it was not asked for) ends in ``InvalidSubmission`` with one sentence.

The child runs a fixed driver around a task's *adapter*: Python source that may define
``SETUP_FAILURE`` and ``setup(workspace, *args)`` (run before train.py is imported; its
result is the ``context``), must define ``call(fn, inputs, context)`` (calls the
workspace's function on the arrays of one input file and returns its result), and may
define ``after_call(context)`` (returns a sentence if the call broke a rule, else None).
The adapter's functions may use the driver's ``os``, ``sys`` and ``np`` (numpy).
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np
import numpy.typing as npt

from pytest_mlab.core.errors import InvalidSubmission

SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD")

# Runs in the child. The protocol goes over a private copy of stdout and fd 1 is
# pointed at stderr, so prints from train.py cannot be mistaken for protocol lines.
# The adapter's setup runs before train.py is imported, so what it loads (say, a model
# from files checked just before) comes from a state train.py has not touched.
_DRIVER_HEAD = r"""
import os, sys
proto = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

def say(line):
    proto.write(line + "\n")
    proto.flush()

def brief(exc):
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]

SETUP_FAILURE = "Importing train.py failed"

def setup(workspace, *args):
    return None

def after_call(context):
    return None
"""

_DRIVER_LOOP = r"""
workspace, function_name = sys.argv[1], sys.argv[2]
sys.path.insert(0, workspace)
try:
    import numpy as np
    context = setup(workspace, *sys.argv[3:])
except BaseException as exc:
    say("error " + SETUP_FAILURE + " (" + brief(exc) + ")")
    sys.exit(1)
try:
    import train
except BaseException as exc:
    say("error Importing train.py failed (" + brief(exc) + ")")
    sys.exit(1)
fn = getattr(train, function_name, None)
if not callable(fn):
    say("error The workspace's train.py defines no function " + function_name)
    sys.exit(1)
say("ready")
while True:
    in_path = sys.stdin.readline().strip()
    if not in_path:
        break
    out_path = in_path[: -len(".npz")] + ".out.npy"
    try:
        with np.load(in_path) as data:
            inputs = {key: data[key] for key in data.files}
        result = call(fn, inputs, context)
        np.save(out_path, np.asarray(result), allow_pickle=False)
    except BaseException as exc:
        say("error The call to " + function_name + " failed (" + brief(exc) + ")")
        sys.exit(1)
    problem = after_call(context)
    if problem:
        say("error " + problem)
        sys.exit(1)
    say("done " + out_path)
"""


@dataclass(frozen=True)
class ChildProgram:
    """What the child runs, and the words the sentences about it use."""

    function: str
    """The name of the workspace's function, in train.py."""
    adapter: str
    """Python source of the task's part of the driver (see the module docstring)."""
    args: tuple[str, ...] = ()
    """Passed to the adapter's ``setup`` after the workspace."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Set in the child's environment, over the parent's (less its secrets)."""
    loading: str = "importing train.py"
    """What the child is doing until it is ready, as in "Timed out after 60 s while ..."."""
    between_calls: str = "waiting for the next input"
    """What the child is doing between calls, as in "The scoring process exited while ..."."""


class TimedChild:
    """The child process running the driver, with a non-blocking view of its protocol lines."""

    def __init__(
        self, workspace: Path, program: ChildProgram, stderr: TextIO, scratch: Path, deadline: float
    ) -> None:
        self.program = program
        self.scratch = scratch
        self.deadline = deadline
        self._stderr = stderr
        env = {k: v for k, v in os.environ.items() if not _is_secret(k)} | dict(program.env)
        driver = _DRIVER_HEAD + program.adapter + _DRIVER_LOOP
        self.proc = subprocess.Popen(
            [sys.executable, "-B", "-c", driver, str(workspace), program.function, *program.args],
            cwd=workspace,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._pump_thread = threading.Thread(target=self._pump, daemon=True)
        self._pump_thread.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def wait_until_ready(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds and never past the deadline, for "ready"."""
        first = self.read(self._left(timeout), self.program.loading)
        if first != "ready":
            raise InvalidSubmission(f"The scoring process answered {first[:100]!r}, not 'ready'.")

    def call(
        self, inputs: Mapping[str, npt.ArrayLike], name: str, timeout: float
    ) -> tuple[float, npt.NDArray[np.generic]]:
        """One call of the function on ``inputs``: the parent-measured seconds and the output.

        ``name`` names the input file in the scratch folder; the call may take at most
        ``timeout`` seconds and never run past the deadline.
        """
        path = self.scratch / f"{name}.npz"
        np.savez(path, **inputs)  # type: ignore[arg-type]
        expected_out = str(path)[: -len(".npz")] + ".out.npy"
        limit = self._left(timeout)
        start = time.perf_counter()
        self.send(str(path))
        line = self.read(limit, f"running {self.program.function}")
        elapsed = time.perf_counter() - start
        if line != f"done {expected_out}":
            raise InvalidSubmission(f"The scoring process answered {line[:100]!r}, not its output.")
        try:
            out: npt.NDArray[np.generic] = np.load(expected_out, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InvalidSubmission(
                f"The output of {self.program.function} is unreadable ({exc})."
            ) from None
        return elapsed, out

    def send(self, line: str) -> None:
        """Send a request; a line already waiting (say, a forged early "done") is rejected."""
        with contextlib.suppress(queue.Empty):
            stale = self._judge(self._lines.get_nowait(), self.program.between_calls)
            raise InvalidSubmission(f"The scoring process wrote {stale[:100]!r} unprompted.")
        assert self.proc.stdin is not None
        # If the child died, the next read reports it.
        with contextlib.suppress(OSError):
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()

    def read(self, timeout: float, what: str) -> str:
        """The next protocol line, or InvalidSubmission if the child fails, dies or stalls."""
        try:
            line = self._lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise InvalidSubmission(f"Timed out after {timeout:.0f} s while {what}.") from None
        return self._judge(line, what)

    def _left(self, timeout: float) -> float:
        return min(timeout, self.deadline - time.monotonic())

    def _judge(self, line: str | None, what: str) -> str:
        if line is None:
            raise InvalidSubmission(
                f"The scoring process exited while {what}{self._stderr_tail()}."
            )
        if line.startswith("error "):
            raise InvalidSubmission(line[len("error ") :] + ".")
        return line

    def _stderr_tail(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0)
        lines = [ln.strip() for ln in self._stderr.read().splitlines() if ln.strip()]
        return f" (last stderr line: {lines[-1][:300]})" if lines else ""

    def close(self) -> None:
        """Kill the child and release its pipes."""
        self.proc.kill()
        self.proc.wait()
        self._pump_thread.join(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            # A broken pipe to a dead child has nothing left to flush.
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


@contextlib.contextmanager
def start_timed_child(
    workspace: Path, program: ChildProgram, total_timeout: float, scratch_prefix: str
) -> Iterator[TimedChild]:
    """Start the child in ``workspace``; every wait on it ends ``total_timeout`` s from now.

    Inputs, outputs and the child's stderr live in a scratch folder (its name starts
    with ``scratch_prefix``) that is removed, with the child, on leaving the block.
    """
    deadline = time.monotonic() + total_timeout
    with (
        tempfile.TemporaryDirectory(prefix=scratch_prefix) as tmp,
        open(Path(tmp) / "stderr.txt", "w+", encoding="utf-8", errors="replace") as stderr,
    ):
        child = TimedChild(Path(workspace).resolve(), program, stderr, Path(tmp), deadline)
        try:
            yield child
        finally:
            child.close()


def _is_secret(name: str) -> bool:
    return any(marker in name.upper() for marker in SECRET_MARKERS)
