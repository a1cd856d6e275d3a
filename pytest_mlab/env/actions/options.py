"""Choices about what actions return, where a user may depart from MLAgentBench's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ScriptOutput = Literal["paper", "both"]
SCRIPT_OUTPUTS: tuple[ScriptOutput, ...] = ("paper", "both")


@dataclass(frozen=True)
class ActionOptions:
    """How the environment's actions behave; the defaults are the original's."""

    script_output: ScriptOutput = "paper"
    """Execute Script: ``paper`` returns stdout, or stderr when the script failed or printed
    nothing to stdout; ``both`` returns both streams, clipped to their head and tail."""
    understand_limit: int | None = None
    """Understand File: the most characters of a file read; None reads the whole file."""

    def describe(self) -> str:
        limit = "whole file" if self.understand_limit is None else f"{self.understand_limit}"
        return f"script-output={self.script_output} understand-limit={limit}"
