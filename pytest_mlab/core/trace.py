"""A trial's trace: one JSON line per step, appended, never rewritten."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_mlab.core.text import clip

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
    usage: dict[str, float] = field(default_factory=dict)
    """LLM usage of the step: tokens_in, tokens_out, cost."""
    thought: str = ""
    """The agent's reasoning that chose the step, where it told the environment."""


class Trace:
    def __init__(self, path: Path, *, append: bool = False) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not append:
            path.write_text("", encoding="utf-8")

    def append(self, step: Step) -> None:
        record = asdict(step)
        record["args"] = {k: clip(str(v), _FIELD_LIMIT) for k, v in step.args.items()}
        record["observation"] = clip(step.observation, _FIELD_LIMIT)
        record["thought"] = clip(step.thought, _FIELD_LIMIT)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")


def read_trace(path: Path) -> list[Step]:
    """The steps of a trace; a last line cut short by an interruption is ignored."""
    steps = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            steps.append(Step(**json.loads(line)))
        except (ValueError, TypeError):
            break
    return steps
