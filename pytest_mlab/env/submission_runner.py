"""How a scorer runs the workspace's code: in a sandbox like the trial's, over the copy of
the submission, while the scorer keeps the clock and the answers outside."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox.base import SandboxProcess
from pytest_mlab.sandbox.factory import make_sandbox
from pytest_mlab.sandbox.spec import SandboxSpec


class SubmissionRunner:
    """Starts programs in the scoring sandbox, made at the first start, closed at the end.

    A task's ``score(submission, private, runner)`` receives one; its programs see the
    submission's folder as their working directory and nothing the trial's could not.
    """

    def __init__(self, kind: str, spec: SandboxSpec) -> None:
        self.kind = kind
        self.spec = spec
        self._sandbox: object | None = None

    def start(self, argv: Sequence[str]) -> SandboxProcess:
        """Start ``argv`` with pipes to its stdin, stdout and stderr."""
        if self._sandbox is None:
            self._sandbox = make_sandbox(self.kind, self.spec)
        start = getattr(self._sandbox, "start", None)
        if start is None:
            raise SandboxError(f"the {self.kind} sandbox cannot start a program for a scorer "
                               "(it has no start method)")
        process: SandboxProcess = start(argv)
        return process

    def close(self) -> None:
        close = getattr(self._sandbox, "close", None)
        if close is not None:
            close()
        self._sandbox = None
