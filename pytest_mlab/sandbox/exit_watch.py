"""Waiting for a child to end, woken the moment it does.

``Popen.wait(timeout)`` polls with sleeps that grow to 50 ms, so a script of 0.1 s was
seen ended 0.05 s late, on every run of every trial. A pidfd (Linux 5.3 and later) becomes
readable when its process ends; where there is none, the wait falls back to Popen's.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess


class ExitWatch:
    """``watch(seconds)``: whether the child ended (and was reaped) within ``seconds``."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self._poll: select.poll | None = None
        self._fd: int | None = None
        with contextlib.suppress(AttributeError, OSError):  # no pidfd here, or gone already
            self._fd = os.pidfd_open(proc.pid)
            self._poll = select.poll()
            self._poll.register(self._fd, select.POLLIN)

    def __call__(self, seconds: float) -> bool:
        if self._poll is not None and not self._poll.poll(max(0.0, seconds) * 1000):
            return False
        try:
            # Readable means ended: the reaping does not wait.
            self.proc.wait(timeout=0 if self._poll is not None else seconds)
        except subprocess.TimeoutExpired:
            return False
        return True

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
