"""The one interface every sandbox implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ExecResult:
    stdout: str
    stderr: str
    returncode: int
    seconds: float
    timed_out: bool


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
