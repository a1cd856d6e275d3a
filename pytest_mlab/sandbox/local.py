"""Scripts in a child process group on this machine, killed whole on timeout."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_mlab.errors import SandboxError
from pytest_mlab.sandbox.base import ExecResult

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
# After a timeout, give the killed group this long to release its pipes.
_DRAIN_SECONDS = 5.0


def scrubbed_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without anything that looks like a credential."""
    return {name: value for name, value in environ.items() if not _SECRET.search(name)}


class LocalSandbox:
    """Runs programs in the workspace, in a process group of their own.

    This is process hygiene, not isolation: the program has the harness's user,
    file system and network. (Isolation arrives with the bubblewrap sandbox.)
    """

    isolation = "process-group"

    def __init__(self, workspace: Path, extra_env: Mapping[str, str] | None = None) -> None:
        self.workspace = workspace
        self.environ = scrubbed_environ(os.environ) | dict(extra_env or {})

    def run(self, argv: Sequence[str], timeout: float) -> ExecResult:
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                list(argv), cwd=self.workspace, env=self.environ, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            )
        except OSError as exc:
            raise SandboxError(f"could not start {argv[0]}: {exc}") from exc
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            out, err = self._kill(proc)
        finally:
            self._kill_group(proc.pid)
        return ExecResult(
            stdout=out.decode(errors="replace"), stderr=err.decode(errors="replace"),
            returncode=proc.wait(), seconds=time.monotonic() - started, timed_out=timed_out,
        )

    @staticmethod
    def _kill_group(pgid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)

    def _kill(self, proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
        self._kill_group(proc.pid)
        try:
            return proc.communicate(timeout=_DRAIN_SECONDS)
        except subprocess.TimeoutExpired:
            # A grandchild left the group and still holds our pipes: stop reading.
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
            return b"", b""
