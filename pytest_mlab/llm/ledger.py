"""The session's spending, shared by every worker: one appended line per LLM call."""

from __future__ import annotations

import os
from pathlib import Path


class CostLedger:
    def __init__(self, path: Path) -> None:
        self.path = path

    def add(self, cost: float) -> None:
        if cost <= 0:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One short write with O_APPEND is atomic, so workers need no lock.
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{cost!r}\n".encode())
        finally:
            os.close(fd)

    def total(self) -> float:
        try:
            lines = self.path.read_text(encoding="utf-8").split()
        except FileNotFoundError:
            return 0.0
        return sum(float(line) for line in lines)
