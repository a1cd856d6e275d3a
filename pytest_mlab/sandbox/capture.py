"""Run a child process with a wall-clock limit, reading its output without hoarding it.

A script may print a gigabyte; the harness keeps the head and the tail of each stream
and a count of what it left out, so its own memory stays small.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox.base import ExecResult
from pytest_mlab.sandbox.exit_watch import ExitWatch

KEEP_BYTES = 64 * 1024
_CHUNK = 64 * 1024
# After the kill, give the readers this long to see the pipes close.
_DRAIN_SECONDS = 5.0
CHECK_SECONDS = 1.0
"""How often a running program's limits (the disk quota) are checked."""


@dataclass
class Stream:
    head: bytearray
    tail: deque[bytes]
    tail_size: int = 0
    total: int = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = KEEP_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail.append(chunk)
            self.tail_size += len(chunk)
            while self.tail_size - len(self.tail[0]) >= KEEP_BYTES:
                self.tail_size -= len(self.tail.popleft())

    def text(self) -> str:
        tail = b"".join(self.tail)[-KEEP_BYTES:]
        elided = self.total - len(self.head) - len(tail)
        head = self.head.decode(errors="replace")
        if elided <= 0:
            return head + tail.decode(errors="replace")
        note = f"\n[... {elided} bytes of output elided ...]\n"
        return head + note + tail.decode(errors="replace")


def _pump(pipe: IO[bytes], stream: Stream) -> None:
    with contextlib.suppress(OSError, ValueError):
        while chunk := pipe.read1(_CHUNK):  # type: ignore[attr-defined]
            stream.add(chunk)


@dataclass
class Readers:
    """Threads reading a child's stdout and stderr into a ``Stream`` each."""

    pipes: tuple[IO[bytes], IO[bytes]]
    streams: tuple[Stream, Stream]
    threads: list[threading.Thread]

    @classmethod
    def start(cls, stdout: IO[bytes], stderr: IO[bytes]) -> Readers:
        streams = (Stream(bytearray(), deque()), Stream(bytearray(), deque()))
        threads = [threading.Thread(target=_pump, args=(pipe, stream), daemon=True)
                   for pipe, stream in zip((stdout, stderr), streams, strict=True)]
        for thread in threads:
            thread.start()
        return cls((stdout, stderr), streams, threads)

    def finish(self) -> tuple[str, str]:
        """The text of both streams, once the pipes close (or a while after the kill)."""
        for thread in self.threads:
            thread.join(_DRAIN_SECONDS)
        # A grandchild that left the group may still hold the pipes: stop reading anyway.
        for pipe in self.pipes:
            with contextlib.suppress(OSError):
                pipe.close()
        return self.streams[0].text(), self.streams[1].text()


def kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def wait_watching(
    done: Callable[[float], bool], timeout: float, check: Callable[[], str | None] | None
) -> tuple[bool, str | None]:
    """Wait until ``done(seconds)`` says the program ended, the timeout passed (True), or
    ``check`` names a limit it broke (its sentence); ``check`` runs every second."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if done(min(left, CHECK_SECONDS)):
            return False, None
        if check is not None and (broken := check()) is not None:
            return False, broken
    return True, None


def run_captured(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    preexec: Callable[[], None] | None = None,
    check: Callable[[], str | None] | None = None,
    kill: Callable[[], None] | None = None,
    pass_fds: Sequence[int] = (),
) -> ExecResult:
    """Run ``argv`` in a new session; kill its whole process group (and with ``kill``,
    whatever else it started) on timeout, when ``check`` names a broken limit, and after."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            preexec_fn=preexec, pass_fds=pass_fds,
        )
    except OSError as exc:
        raise SandboxError(f"could not start {argv[0]}: {exc}") from exc
    assert proc.stdout is not None and proc.stderr is not None
    readers = Readers.start(proc.stdout, proc.stderr)
    ended = ExitWatch(proc)
    try:
        timed_out, stopped_by = wait_watching(ended, timeout, check)
    finally:
        ended.close()
        kill_group(proc.pid)
        if kill is not None:
            kill()
        returncode = proc.wait()
    stdout, stderr = readers.finish()
    return ExecResult(
        stdout=stdout, stderr=stderr, returncode=returncode,
        seconds=time.monotonic() - started, timed_out=timed_out, stopped_by=stopped_by,
    )
