"""Bits per character of the workspace's language model on the hidden test verses.

The submission's lm.py runs in a child process in the scoring sandbox (the trial's
isolation and hidden paths, so it cannot read the answers) that never sees a character
before it has committed to a distribution over it: the parent reveals the test text one
position at a time and computes every log-probability itself from the rows the child
returned.
"""

from __future__ import annotations

import contextlib
import os
import select
import struct
import sys
import threading
import time
from pathlib import Path

import numpy as np

from pytest_mlab import InvalidSubmission
from pytest_mlab.taskkit.timed_child import Runner

VOCAB = "\n" + "".join(chr(code) for code in range(32, 127))
SHUFFLE_SEED = 7
READY_TIMEOUT = 120.0
# Stays under the task's score_timeout so a slow model is rejected, not an infra error.
TOTAL_TIMEOUT = 270.0
HEADER = struct.Struct("<cI")
# The largest frame but a row of predictions: an error message, say.
FRAME_BYTES = 1 << 16

# Runs in the child. Protocol frames go over private copies of fds 0 and 1; fd 1 then
# points at stderr and fd 0 at /dev/null, so the model's own prints and reads cannot
# disturb them. The parent writes the next request only after reading the answer to
# the last one, so there is never anything ahead for the child to read.
_DRIVER = r"""
import os, struct, sys
HEADER = struct.Struct("<cI")
proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
os.dup2(2, 1)
sys.stdout = sys.stderr

def say(kind, payload=b""):
    proto_out.write(HEADER.pack(kind, len(payload)) + payload)

def brief(exc):
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:300]

def read_exact(n):
    data = b""
    while len(data) < n:
        chunk = proto_in.read(n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data

# The working directory is the workspace, wherever the sandbox mounted it.
sys.path.insert(0, os.getcwd())
try:
    import numpy as np
    import lm
    model = lm.load()
except BaseException as exc:
    say(b"E", ("Importing lm.py and calling lm.load() failed: " + brief(exc)).encode())
    sys.exit(1)
say(b"R")
while True:
    kind, n = HEADER.unpack(read_exact(HEADER.size))
    try:
        if kind == b"S":
            model.start(n)
            say(b"K")
            continue
        arrays = np.frombuffer(read_exact(16 * n), dtype="<i8")
        ids, previous = arrays[:n].copy(), arrays[n:].copy()
        out = np.asarray(model.predict(ids, previous), dtype="<f4")
    except BaseException as exc:
        say(b"E", ("The model failed: " + brief(exc)).encode())
        sys.exit(1)
    if out.shape != (n, 96):
        say(b"E", f"predict() returned shape {out.shape}, expected ({n}, 96)".encode())
        sys.exit(1)
    say(b"L", np.ascontiguousarray(out).tobytes())
"""


class _Model:
    """The child process serving lm.py in the scoring sandbox, spoken to in frames with a
    deadline."""

    def __init__(self, runner: Runner, deadline: float) -> None:
        self.deadline = deadline
        self.proc = runner.start([sys.executable, "-B", "-c", _DRIVER])
        self.stderr = bytearray()
        self._pump = threading.Thread(target=self._read_stderr, daemon=True)
        self._pump.start()

    def _read_stderr(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := self.proc.stderr.read1(65536):  # type: ignore[attr-defined]
                self.stderr = (self.stderr + chunk)[-20000:]

    def send(self, kind: bytes, n: int, payload: bytes = b"") -> None:
        # A dead child is reported by the next read.
        with contextlib.suppress(OSError):
            self.proc.stdin.write(HEADER.pack(kind, n) + payload)
            self.proc.stdin.flush()

    def receive(
        self, expected: bytes, what: str, timeout: float | None = None, most: int = FRAME_BYTES
    ) -> bytes:
        """The payload of the next frame, of kind ``expected`` and at most ``most`` bytes."""
        limit = self.deadline if timeout is None else min(self.deadline, time.monotonic() + timeout)
        kind, size = HEADER.unpack(self._read(HEADER.size, limit, what))
        if size > max(most, FRAME_BYTES):
            raise InvalidSubmission(f"The model process sent a frame of {size} bytes while "
                                    f"{what}, more than the {max(most, FRAME_BYTES)} expected.")
        payload = self._read(size, limit, what) if size else b""
        if kind == b"E":
            raise InvalidSubmission(payload.decode(errors="replace") + self._stderr_tail() + ".")
        if kind != expected:
            raise InvalidSubmission(f"The model process sent an unexpected frame while {what}.")
        return payload

    def _read(self, size: int, limit: float, what: str) -> bytes:
        fd = self.proc.stdout.fileno()
        chunks, got = [], 0
        while got < size:
            left = limit - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise InvalidSubmission(f"The model timed out while {what}.")
            chunk = os.read(fd, min(size - got, 1 << 20))
            if not chunk:
                # Killed (a no-op if it is dead) so that a limit it broke is known.
                self.proc.kill()
                stopped = getattr(self.proc, "stopped_by", None)
                if stopped:
                    raise InvalidSubmission(f"The model process was stopped while {what}: "
                                            f"{stopped}.")
                raise InvalidSubmission(
                    f"The model process exited while {what}{self._stderr_tail()}."
                )
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _stderr_tail(self) -> str:
        self._pump.join(timeout=1)
        text = bytes(self.stderr).decode(errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return f" (last stderr line: {lines[-1][:300]})" if lines else ""

    def close(self) -> None:
        self.proc.kill()
        self._pump.join(timeout=5)


def _test_sequences(private: Path) -> list[np.ndarray]:
    """Each test verse plus its closing newline, as character ids, in a fixed shuffled order."""
    lookup = {char: index for index, char in enumerate(VOCAB)}
    lines = (private / "test.txt").read_text(encoding="ascii").splitlines()
    order = np.random.default_rng(SHUFFLE_SEED).permutation(len(lines))
    return [np.array([lookup[c] for c in lines[i] + "\n"], dtype=np.int64) for i in order]


def _bits(model: _Model, sequences: list[np.ndarray]) -> float:
    lengths = np.array([len(seq) for seq in sequences])
    padded = np.zeros((len(sequences), lengths.max()), dtype=np.int64)
    for row, seq in enumerate(sequences):
        padded[row, : len(seq)] = seq
    model.send(b"S", len(sequences))
    model.receive(b"K", "starting")
    previous = np.zeros(len(sequences), dtype=np.int64)  # every verse follows a newline
    bits = 0.0
    for step in range(lengths.max()):
        ids = np.flatnonzero(lengths > step)
        request = ids.astype("<i8").tobytes() + previous[ids].astype("<i8").tobytes()
        model.send(b"P", len(ids), request)
        payload = model.receive(b"L", f"predicting position {step}", most=4 * 96 * len(ids))
        if len(payload) != 4 * 96 * len(ids):
            raise InvalidSubmission(f"The model returned the wrong number of values at {step}.")
        rows = np.frombuffer(payload, dtype="<f4").reshape(len(ids), 96).astype(np.float64)
        if not np.isfinite(rows).all():
            raise InvalidSubmission(
                f"predict() returned a value that is not finite at position {step}."
            )
        # Rows are normalised here, so a model cannot gain by not summing to one.
        top = rows.max(axis=1)
        log_norm = top + np.log(np.exp(rows - top[:, None]).sum(axis=1))
        actual = padded[ids, step]
        bits -= float(np.sum(rows[np.arange(len(ids)), actual] - log_norm)) / np.log(2)
        previous[ids] = actual
    return bits / float(lengths.sum())


def score(workspace: Path, private: Path, runner: Runner) -> float:
    if not (Path(workspace) / "lm.py").is_file():
        raise InvalidSubmission("The workspace has no lm.py for the scorer to load.")
    sequences = _test_sequences(private)
    model = _Model(runner, time.monotonic() + TOTAL_TIMEOUT)
    try:
        model.receive(b"R", "loading", timeout=READY_TIMEOUT)
        return _bits(model, sequences)
    finally:
        model.close()
