"""A program started in a sandbox with pipes (a scorer's child): watched for the trial's
limits while it runs, as scripts are, and killed with everything it started."""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Callable
from typing import IO

from pytest_mlab.sandbox.capture import CHECK_SECONDS, kill_group

Check = Callable[[], str | None]


class LocalProcess:
    """A program started with pipes; ``kill`` ends it and all it started.

    ``check`` names a limit the program broke (the disk quota, the memory), in words; it
    runs every second while the program lives and once more when it is killed, and the
    first sentence it gives ends the program and stays in ``stopped_by``.
    """

    def __init__(
        self, proc: subprocess.Popen[bytes], kill_rest: Callable[[], None],
        check: Check | None = None,
    ) -> None:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.stdin: IO[bytes] = proc.stdin
        self.stdout: IO[bytes] = proc.stdout
        self.stderr: IO[bytes] = proc.stderr
        self.stopped_by: str | None = None
        self._kill_rest = kill_rest
        self._check = check
        self._lock = threading.Lock()
        if check is not None:
            threading.Thread(target=self._watch, daemon=True).start()

    def poll(self) -> int | None:
        return self.proc.poll()

    def _watch(self) -> None:
        while True:
            try:
                self.proc.wait(timeout=CHECK_SECONDS)
                return
            except subprocess.TimeoutExpired:
                pass
            if self._broken():
                self.kill()
                return

    def broken_limit(self) -> str | None:
        """The limit the program has broken so far, in words; one that broke a limit is
        killed. Its caller asks after each answer, as a script is checked once it ends."""
        if self._broken():
            self.kill()
        return self.stopped_by

    def _broken(self) -> bool:
        with self._lock:
            if self.stopped_by is None and self._check is not None:
                self.stopped_by = self._check()
            return self.stopped_by is not None

    def kill(self) -> None:
        kill_group(self.proc.pid)
        self._kill_rest()
        self.proc.wait()
        # The memory limit may have struck in the last moments, between two checks.
        self._broken()
        for pipe in (self.stdin, self.stdout, self.stderr):
            with contextlib.suppress(OSError):
                pipe.close()
