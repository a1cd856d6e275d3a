"""Call a function of the submission's train.py in a sandboxed child, timed by the scorer.

The child runs in the scoring sandbox (the ``runner`` a scorer is given: the trial's
isolation, limits and hidden paths, over the copy of the submission), reads input files
and writes output files; the parent owns the clock and checks the outputs, so nothing
the submission prints, writes or patches can change the measured time or the verdict,
and nothing it does reaches beyond the sandbox. Every way the child can fail (a crash, a
stall, a line it was not asked for, an output that is a link, a FIFO or too large, a
broken limit of the trial) ends in ``InvalidSubmission`` with one sentence.

The child runs a fixed driver around a task's *adapter*: Python source that may define
``SETUP_FAILURE`` and ``setup(workspace, *args)`` (run before train.py is imported; its
result is the ``context``; the child then says "set up" and waits for the scorer's "go"
before it imports train.py), must define ``call(fn, inputs, context)`` (calls the
workspace's function on the arrays of one input file and returns its result), and may
define ``after_call(context)`` (returns a sentence if the call broke a rule, else None).
The adapter's functions may use the driver's ``os``, ``sys`` and ``np`` (numpy).
The child's working directory is the submission's folder; paths in the protocol are
relative to it. A program with ``one_thread`` is watched from outside (``child_watch``).
"""

from __future__ import annotations

import contextlib
import json
import queue
import secrets
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
from pytest_mlab.taskkit.child_driver import DRIVER_HEAD, DRIVER_LOOP
from pytest_mlab.taskkit.child_watch import ChildWatch, find_child
from pytest_mlab.taskkit.scratch import Scratch

SCRATCH = ".mlab-scoring"
"""The folder, inside the submission's, that holds the inputs and outputs of the calls."""
STDERR_TAIL = 64 * 1024
LINE_BYTES = 4096
"""The longest protocol line the scorer reads; a longer one ends the scoring."""
# Lines the child wrote that the scorer has not read yet: a child that floods its
# protocol stream then waits on the pipe instead of filling the scorer's memory.
_QUEUED_LINES = 64
ONE_THREAD_ENV = {name: "1" for name in (
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS")}
"""Set for a ``one_thread`` program under its own ``env``: a pool numpy's BLAS starts on
import spins on a core of its own for a while, which the watch rightly counts as a
second thread at work."""
_EXIT_WAIT = 5.0
"""Seconds the scorer waits for a killed child to be gone."""


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
    max_output_bytes: int = 64 << 20
    """The largest output file of one call that the scorer reads."""
    one_thread: bool = False
    """Whether the scorer holds the child, from outside, to the threads its setup left and
    no other process, during every call (``child_watch``)."""


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
        self, runner: Runner, program: ChildProgram, scratch: Scratch, deadline: float
    ) -> None:
        self.program = program
        self.scratch = scratch
        """The scratch folder the scorer made; the child sees it as ``SCRATCH``."""
        self.deadline = deadline
        self.watch: ChildWatch | None = None
        driver = DRIVER_HEAD + program.adapter + DRIVER_LOOP
        env = {**ONE_THREAD_ENV, **program.env} if program.one_thread else program.env
        # Marks the child's command line, for the watch to find it by.
        self.token = f"mlab-child-{secrets.token_hex(8)}"
        self.proc = runner.start([sys.executable, "-I", "-B", "-c", driver, self.token,
                                  program.function, json.dumps(dict(env)),
                                  *program.args])
        self._lines: queue.Queue[str | None] = queue.Queue(_QUEUED_LINES)
        self._too_long = False
        self._stderr = bytearray()
        self._pumps = [threading.Thread(target=self._pump_lines, daemon=True),
                       threading.Thread(target=self._pump_stderr, daemon=True)]
        for pump in self._pumps:
            pump.start()

    def _pump_lines(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while raw := self.proc.stdout.readline(LINE_BYTES):
                if len(raw) == LINE_BYTES and not raw.endswith(b"\n"):
                    self._too_long = True
                    break
                self._lines.put(raw.decode(errors="replace").rstrip("\n"))
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := self.proc.stderr.read1(65536):  # type: ignore[attr-defined]
                self._stderr = (self._stderr + chunk)[-STDERR_TAIL:]

    def wait_until_ready(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds and never past the deadline, for "ready"."""
        limit = self._left(timeout)
        ends = time.monotonic() + limit
        self._expect("set up", ends, limit)
        if self.program.one_thread:
            self.watch = ChildWatch(find_child(self.token))
        self.send("go")
        self._expect("ready", ends, limit)

    def _expect(self, word: str, ends: float, limit: float) -> None:
        line = self.read(ends - time.monotonic(), self.program.loading, limit)
        if line != word:
            raise InvalidSubmission(f"The scoring process answered {line[:100]!r}, not {word!r}.")

    def call(
        self, inputs: Mapping[str, npt.ArrayLike], name: str, timeout: float
    ) -> tuple[float, npt.NDArray[np.generic]]:
        """One call of the function on ``inputs``: the parent-measured seconds and the output.

        ``name`` names the input file in the scratch folder; the call may take at most
        ``timeout`` seconds and never run past the deadline.
        """
        self.scratch.write_inputs(f"{name}.npz", inputs)
        request = f"{SCRATCH}/{name}.npz"
        limit = self._left(timeout)
        with self._watched():
            start = time.perf_counter()
            self.send(request)
            line = self.read(limit, f"running {self.program.function}")
            elapsed = time.perf_counter() - start
        self._refuse_if_stopped(f"running {self.program.function}")
        if line != f"done {SCRATCH}/{name}.out.npy":
            raise InvalidSubmission(f"The scoring process answered {line[:100]!r}, not its output.")
        out = self.scratch.read_output(f"{name}.out.npy",
                                       f"The output of {self.program.function}",
                                       self.program.max_output_bytes)
        return elapsed, out

    @contextlib.contextmanager
    def _watched(self) -> Iterator[None]:
        if self.watch is None:
            yield
            return
        # A broken rule stands in for the child's answer, so the scorer stops waiting.
        with self.watch.call(lambda problem: self._offer(f"error {problem}")):
            yield

    def _offer(self, line: str) -> None:
        with contextlib.suppress(queue.Full):  # a flood is refused on its own
            self._lines.put_nowait(line)

    def send(self, line: str) -> None:
        """Send a request; a line already waiting (say, a forged early "done") is rejected."""
        with contextlib.suppress(queue.Empty):
            stale = self._judge(self._lines.get_nowait(), self.program.between_calls)
            raise InvalidSubmission(f"The scoring process wrote {stale[:100]!r} unprompted.")
        # If the child died, the next read reports it.
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()

    def read(self, timeout: float, what: str, waited: float | None = None) -> str:
        """The next protocol line, or InvalidSubmission if the child fails, dies or stalls
        (in ``timeout`` seconds; ``waited``, if given, is the whole wait it ends)."""
        try:
            line = self._lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            waited = timeout if waited is None else waited
            raise InvalidSubmission(f"Timed out after {waited:.0f} s while {what}.") from None
        return self._judge(line, what)

    def _left(self, timeout: float) -> float:
        return min(timeout, self.deadline - time.monotonic())

    def _judge(self, line: str | None, what: str) -> str:
        if line is None:
            if self._too_long:
                raise InvalidSubmission(f"The scoring process wrote a line longer than "
                                        f"{LINE_BYTES} bytes while {what}.")
            # Killed (a no-op if it is dead) so that a limit it broke is known.
            self.proc.kill()
            self._refuse_if_stopped(what)
            raise InvalidSubmission(
                f"The scoring process exited while {what}{self._stderr_tail()}."
            )
        if line.startswith("error "):
            raise InvalidSubmission(line[len("error ") :] + ".")
        return line

    def _refuse_if_stopped(self, what: str) -> None:
        """Reject the submission if the child broke a limit of the trial by now (where
        the runner's processes say)."""
        check = getattr(self.proc, "broken_limit", None)
        stopped = check() if check is not None else getattr(self.proc, "stopped_by", None)
        if stopped:
            raise InvalidSubmission(f"The scoring process was stopped while {what}: {stopped}.")

    def _stderr_tail(self) -> str:
        self._pumps[1].join(timeout=1)
        text = bytes(self._stderr).decode(errors="replace")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return f" (last stderr line: {lines[-1][:300]})" if lines else ""

    def close(self) -> None:
        """Kill the child and everything it started, wait until it has exited (so what the
        scorer times next has the machine to itself), and release its pipes."""
        self.proc.kill()
        exited_by = time.monotonic() + _EXIT_WAIT
        while self.proc.poll() is None and time.monotonic() < exited_by:
            time.sleep(0.01)
        # Unread lines are dropped, so the reader is not left waiting for room.
        with contextlib.suppress(queue.Empty):
            while True:
                self._lines.get_nowait()
        for pump in self._pumps:
            pump.join(timeout=5)


@contextlib.contextmanager
def start_timed_child(
    submission: Path, runner: Runner, program: ChildProgram, total_timeout: float
) -> Iterator[TimedChild]:
    """Start the child in the submission's folder; every wait on it ends ``total_timeout``
    seconds from now. The child and the scratch folder go on leaving the block."""
    deadline = time.monotonic() + total_timeout
    scratch = Scratch(Path(submission) / SCRATCH)
    try:
        child = TimedChild(runner, program, scratch, deadline)
        try:
            yield child
        finally:
            child.close()
    finally:
        scratch.close()
