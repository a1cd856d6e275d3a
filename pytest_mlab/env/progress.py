"""The latest step of a running trial, rewritten after each step for the live display."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.llm import Usage


@dataclass(frozen=True)
class ProgressFile:
    path: Path
    trial: str
    """How the display names the trial (the test item's name)."""
    shown: Callable[[dict[str, Any]], None] | None = None
    """Also hands each record to a live display in this process, if there is one."""
    started: float = field(default_factory=time.time)
    """When the trial began, so a reader of the file alone can tell its elapsed time."""

    def write(self, step: int, max_steps: int, action: str, usage: Usage) -> None:
        record = {"trial": self.trial, "step": step, "max_steps": max_steps, "action": action,
                  "tokens": usage.tokens_in + usage.tokens_out, "cost": usage.cost,
                  "started": self.started, "at": time.time()}
        write_atomic(self.path, json.dumps(record))
        if self.shown is not None:
            self.shown(record)


def read_progress(path: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record
