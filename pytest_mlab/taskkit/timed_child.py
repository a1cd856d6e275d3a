"""Call a function of the submission's train.py in a sandboxed child, timed by the scorer.

The child runs in the scoring sandbox (the ``runner`` a scorer is given: the trial's
isolation, limits and hidden paths, over the copy of the submission), reads input files
and writes output files; the parent owns the clock and checks the outputs, so nothing
the submission prints, writes or patches can change the measured time or the verdict,
and nothing it does reaches beyond the sandbox. Every way the child can fail (a crash, a
stall, a line it was not asked for) ends in ``InvalidSubmission`` with one sentence.

The child runs a fixed driver around a task's *adapter*: Python source that may define
``SETUP_FAILURE`` and ``setup(workspace, *args)`` (run before train.py is imported; its
result is the ``context``), must define ``call(fn, inputs, context)`` (calls the
workspace's function on the arrays of one input file and returns its result), and may
define ``after_call(context)`` (returns a sentence if the call broke a rule, else None).
The adapter's functions may use the driver's ``os``, ``sys`` and ``np`` (numpy).
The child's working directory is the submission's folder; paths in the protocol are
relative to it.
"""

from __future__ import annotations

import contextlib
import json
import queue
import shutil
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

import numpy as np
import numpy.typing as npt

from pytest_mlab.core.errors import InvalidSubmission

SCRATCH = ".mlab-scoring"
"""The folder, inside the submission's, that holds the inputs and outputs of the calls."""
STDERR_TAIL = 64 * 1024

# Runs in the child. The protocol goes over a private copy of stdout and fd 1 is
# pointed at stderr, so prints from train.py cannot be mistaken for protocol lines.
# The adapter's setup runs before train.py is imported, so what it loads (say, a model
# from files checked just before) comes from a state train.py has not touched.
_DRIVER_HEAD = r"""
import json, os, sys
os.environ.update(json.loads(sys.argv[2]))
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
workspace, function_name = os.getcwd(), sys.argv[1]
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
    """Set in the child's environment before anything is imported."""
    loading: str = "importing train.py"
    """What the child is doing until it is ready, as in "Timed out after 60 s while ..."."""
    between_calls: str = "waiting for the next input"
    """What the child is doing between calls, as in "The scoring process exited while ..."."""


class ChildProcess(Protocol):
    """A program a runner started, with pipes (a sandbox's process)."""

    stdin: IO[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]

    def poll(self) -> int | None: ...

    def kill(self) -> None: ...


class Runner(Protocol):
    """What a scorer is given to run the submission's code (the harness's sandbox)."""

    def start(self, argv: Sequence[str]) -> ChildProcess: ...


class TimedChild:
    """The child process running the driver, with a non-blocking view of its protocol lines."""

    def __init__(
        self, runner: Runner, program: ChildProgram, scratch: Path, deadline: float
    ) -> None:
        self.program = program
        self.scratch = scratch
        """The host's path of the scratch folder; the child sees it as ``SCRATCH``."""
        self.deadline = deadline
        driver = _DRIVER_HEAD + program.adapter + _DRIVER_LOOP
        self.proc = runner.start([sys.executable, "-B", "-c", driver, program.function,
                                  json.dumps(dict(program.env)), *program.args])
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr = bytearray()
        self._pumps = [threading.Thread(target=self._pump_lines, daemon=True),
                       threading.Thread(target=self._pump_stderr, daemon=True)]
        for pump in self._pumps:
            pump.start()

    def _pump_lines(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in self.proc.stdout:
                self._lines.put(raw.decode(errors="replace").rstrip("\n"))
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := self.proc.stderr.read1(65536):  # type: ignore[attr-defined]
                self._stderr = (self._stderr + chunk)[-STDERR_TAIL:]

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
        np.savez(self.scratch / f"{name}.npz", **inputs)  # type: ignore[arg-type]
        request = f"{SCRATCH}/{name}.npz"
        limit = self._left(timeout)
        start = time.perf_counter()
        self.send(request)
        line = self.read(limit, f"running {self.program.function}")
        elapsed = time.perf_counter() - start
        if line != f"done {SCRATCH}/{name}.out.npy":
            raise InvalidSubmission(f"The scoring process answered {line[:100]!r}, not its output.")
        try:
            out: npt.NDArray[np.generic] = np.load(self.scratch / f"{name}.out.npy",
                                                   allow_pickle=False)
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
        # If the child died, the next read reports it.
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.write((line + "\n").encode())
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
        self._pumps[1].join(timeout=1)
        text = bytes(self._stderr).decode(errors="replace")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return f" (last stderr line: {lines[-1][:300]})" if lines else ""

    def close(self) -> None:
        """Kill the child, everything it started, and release its pipes."""
        self.proc.kill()
        for pump in self._pumps:
            pump.join(timeout=5)


@contextlib.contextmanager
def start_timed_child(
    submission: Path, runner: Runner, program: ChildProgram, total_timeout: float
) -> Iterator[TimedChild]:
    """Start the child in the submission's folder; every wait on it ends ``total_timeout``
    seconds from now. The child and the scratch folder go on leaving the block."""
    deadline = time.monotonic() + total_timeout
    scratch = Path(submission) / SCRATCH
    scratch.mkdir()
    child = TimedChild(runner, program, scratch, deadline)
    try:
        yield child
    finally:
        child.close()
        shutil.rmtree(scratch, ignore_errors=True)
