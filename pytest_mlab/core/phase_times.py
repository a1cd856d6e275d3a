"""How long the work around a trial took on this machine: preparing a task's data,
measuring its baseline, scoring a trial (with the checks after its turn). The forecast's
history of what is not an agent's own time, one JSON line per event in the cache."""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from pathlib import Path
from typing import Literal, get_args

Phase = Literal["prepare", "baseline", "scoring"]
PHASES: tuple[Phase, ...] = get_args(Phase)
FILE = "phase-times.jsonl"
_KEPT = 50
"""Durations kept per task and phase: the newest say the most of this machine today."""


def record(cache_dir: Path, task: str, phase: Phase, seconds: float) -> None:
    """Add one duration; a line this short is written whole by one append, so workers
    side by side need no lock."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"task": task, "phase": phase, "seconds": round(seconds, 3)}) + "\n"
    fd = os.open(cache_dir / FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def read(cache_dir: Path) -> dict[tuple[str, Phase], list[float]]:
    """(task, phase) -> its newest durations; a line that is not one (a torn write, an
    edit) is skipped."""
    found: dict[tuple[str, Phase], list[float]] = defaultdict(list)
    try:
        text = (cache_dir / FILE).read_text(encoding="utf-8")
    except OSError:
        return {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
            task, phase, seconds = entry["task"], entry["phase"], float(entry["seconds"])
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(task, str) and phase in PHASES and math.isfinite(seconds) and seconds >= 0:
            found[(task, phase)].append(seconds)
    return {key: values[-_KEPT:] for key, values in found.items()}
