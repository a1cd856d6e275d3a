"""A trial's trace: one JSON line per step, appended, never rewritten."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pytest_mlab.text import clip

_FIELD_LIMIT = 4_000


@dataclass(frozen=True)
class Step:
    step: int
    action: str
    args: dict[str, Any]
    observation: str
    started: float
    ended: float
    exit_code: int | None = None


class Trace:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")

    def append(self, step: Step) -> None:
        record = asdict(step)
        record["args"] = {k: clip(str(v), _FIELD_LIMIT) for k, v in step.args.items()}
        record["observation"] = clip(step.observation, _FIELD_LIMIT)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
