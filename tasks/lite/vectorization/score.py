"""Time the workspace's conv2d_forward with the scorer's own clock and check its output.

The agent's code runs in a child process that only sees input files and writes
output files; the parent owns the clock and the reference, so nothing the
workspace prints, writes or patches can change the measured time or the verdict.
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
from pathlib import Path
from typing import TextIO

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from pytest_mlab import InvalidSubmission

TIMED_CALLS = 3
X_SHAPE = (16, 32, 32, 8)
W_SHAPE = (3, 3, 8, 16)
STRIDE, PADDING = 1, 1
# An untimed call with other shapes, so a function that only handles the timed case fails.
CHECK_X_SHAPE = (3, 11, 9, 5)
CHECK_W_SHAPE = (4, 4, 5, 7)
CHECK_STRIDE, CHECK_PADDING = 2, 2
READY_TIMEOUT = 60.0
CALL_TIMEOUT = 120.0
# Stays under the task's score_timeout so a slow submission is rejected, not an infra error.
TOTAL_TIMEOUT = 270.0
SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD")

# Runs in the child. The protocol goes over a private copy of stdout and fd 1 is
# pointed at stderr, so prints from train.py cannot be mistaken for protocol lines.
_DRIVER = r"""
import os, sys
proto = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

def say(line):
    proto.write(line + "\n")
    proto.flush()

def brief(exc):
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]

workspace = sys.argv[1]
sys.path.insert(0, workspace)
try:
    import numpy as np
    import train
except BaseException as exc:
    say("error Importing train.py failed (" + brief(exc) + ")")
    sys.exit(1)
fn = getattr(train, "conv2d_forward", None)
if not callable(fn):
    say("error The workspace's train.py defines no function conv2d_forward")
    sys.exit(1)
say("ready")
while True:
    in_path = sys.stdin.readline().strip()
    if not in_path:
        break
    out_path = in_path[: -len(".npz")] + ".out.npy"
    try:
        with np.load(in_path) as data:
            x, w, b = data["x"], data["weights"], data["bias"]
            stride, padding = int(data["stride"]), int(data["padding"])
        result = np.asarray(fn(x, w, b, stride, padding))
        np.save(out_path, result, allow_pickle=False)
    except BaseException as exc:
        say("error The call to conv2d_forward failed (" + brief(exc) + ")")
        sys.exit(1)
    say("done " + out_path)
"""


def reference(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int, padding: int
) -> np.ndarray:
    """The trusted convolution: every window at once, one contraction over (k, k, c_in)."""
    kh, kw = weights.shape[:2]
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    windows = sliding_window_view(padded, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
    out: np.ndarray = np.einsum("nhwcij,ijcf->nhwf", windows, weights, optimize=True) + bias
    return out


def _is_secret(name: str) -> bool:
    return any(marker in name.upper() for marker in SECRET_MARKERS)


class _Child:
    """The child process running the driver, with a non-blocking view of its protocol lines."""

    def __init__(self, workspace: Path, stderr: TextIO) -> None:
        env = {k: v for k, v in os.environ.items() if not _is_secret(k)}
        self._stderr = stderr
        self.proc = subprocess.Popen(
            [sys.executable, "-B", "-c", _DRIVER, str(workspace)],
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

    def send(self, line: str) -> None:
        """Send a request; a line already waiting (say, a forged early "done") is rejected."""
        with contextlib.suppress(queue.Empty):
            stale = self._judge(self._lines.get_nowait(), "waiting for the next input")
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
        self.proc.kill()
        self.proc.wait()
        self._pump_thread.join(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            # A broken pipe to a dead child has nothing left to flush.
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _draw(
    rng: np.random.Generator, x_shape: tuple[int, ...], w_shape: tuple[int, ...]
) -> dict[str, np.ndarray]:
    return {
        "x": rng.standard_normal(x_shape),
        "weights": rng.standard_normal(w_shape),
        "bias": rng.standard_normal(w_shape[-1]),
    }


def _call(
    child: _Child,
    inputs: dict[str, np.ndarray],
    stride: int,
    padding: int,
    path: Path,
    deadline: float,
) -> float:
    """One call in the child; the parent-measured seconds, once the output is checked."""
    x, weights, bias = inputs["x"], inputs["weights"], inputs["bias"]
    np.savez(path, x=x, weights=weights, bias=bias, stride=stride, padding=padding)
    expected_out = str(path)[: -len(".npz")] + ".out.npy"
    timeout = min(CALL_TIMEOUT, deadline - time.monotonic())
    start = time.perf_counter()
    child.send(str(path))
    line = child.read(timeout, "running conv2d_forward")
    elapsed = time.perf_counter() - start
    if line != f"done {expected_out}":
        raise InvalidSubmission(f"The scoring process answered {line[:100]!r}, not its output.")
    try:
        out = np.load(expected_out, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InvalidSubmission(f"The output of conv2d_forward is unreadable ({exc}).") from None
    want = reference(x, weights, bias, stride, padding)
    if out.shape != want.shape:
        raise InvalidSubmission(
            f"conv2d_forward returned shape {out.shape}, expected {want.shape}."
        )
    numeric = np.issubdtype(out.dtype, np.floating)
    if not numeric or not np.allclose(out, want, rtol=1e-5, atol=1e-6):
        raise InvalidSubmission("conv2d_forward returned values that differ from the reference.")
    return elapsed


def score(workspace: Path, private: Path) -> float:
    """Minimum over three fresh random inputs of the parent-timed seconds of one forward pass."""
    rng = np.random.default_rng()
    deadline = time.monotonic() + TOTAL_TIMEOUT
    with (
        tempfile.TemporaryDirectory(prefix="mlab-vectorization-") as tmp,
        open(Path(tmp) / "stderr.txt", "w+", encoding="utf-8", errors="replace") as stderr,
    ):
        scratch = Path(tmp)
        child = _Child(Path(workspace).resolve(), stderr)
        try:
            first = child.read(
                min(READY_TIMEOUT, deadline - time.monotonic()), "importing train.py"
            )
            if first != "ready":
                raise InvalidSubmission(
                    f"The scoring process answered {first[:100]!r}, not 'ready'."
                )
            check = _draw(rng, CHECK_X_SHAPE, CHECK_W_SHAPE)
            _call(child, check, CHECK_STRIDE, CHECK_PADDING, scratch / "check.npz", deadline)
            times = []
            for i in range(TIMED_CALLS):
                inputs = _draw(rng, X_SHAPE, W_SHAPE)
                path = scratch / f"call{i}.npz"
                times.append(_call(child, inputs, STRIDE, PADDING, path, deadline))
        finally:
            child.close()
    return min(times)
