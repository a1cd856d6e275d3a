"""The one interface every sandbox implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Protocol


@dataclass(frozen=True)
class ExecResult:
    stdout: str
    stderr: str
    returncode: int
    seconds: float
    timed_out: bool
    stopped_by: str | None = None
    """The limit that ended the program, in words ("it used more than ..."), if one did."""
    left_running: int = 0
    """How many processes the program left running when it ended, all stopped then."""


class SandboxProcess(Protocol):
    """A program started in a sandbox that its caller talks to over pipes."""

    stdin: IO[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]
    stopped_by: str | None
    """The limit that ended it, in words, once it was killed for one (else None)."""

    def poll(self) -> int | None:
        """Its exit status, or None while it runs."""
        ...

    def kill(self) -> None:
        """End it and everything it started; the pipes are closed."""
        ...

    def broken_limit(self) -> str | None:
        """The limit it has broken so far, in words (it is then killed), else None."""
        ...


class Sandbox(Protocol):
    @property
    def isolation(self) -> str:
        """Short name of the isolation actually in force, recorded with every result."""
        ...

    def run(self, argv: Sequence[str], timeout: float) -> ExecResult:
        """Run ``argv`` in the workspace; never raise for the program's own failure."""
        ...

    def close(self) -> None:
        """Release what the sandbox holds (a container); called when the trial ends."""
        ...


class StoppableSandbox(Sandbox, Protocol):
    """A sandbox that can stop every process of the trial before its submission is copied
    (the built-in ones; optional for a plugin's own, as ``close`` is)."""

    def stop_all(self) -> None:
        """Stop every process the trial's scripts left, and check that none is; raise
        SandboxError if one could not be (the files it writes would change the score)."""
        ...


class InteractiveSandbox(Sandbox, Protocol):
    """A sandbox that can also start a program its caller talks to (scorers need one to
    run the workspace's code while keeping the clock and the answers outside)."""

    def start(self, argv: Sequence[str]) -> SandboxProcess:
        """Start ``argv`` in the workspace with pipes to its stdin, stdout and stderr."""
        ...
