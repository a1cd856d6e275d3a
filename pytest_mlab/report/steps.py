"""A trial's trace as the report shows it: each step, its LLM usage and what it changed."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from pytest_mlab.core.plain_text import printable
from pytest_mlab.core.snapshots import Manifest, manifest_steps, read_manifest
from pytest_mlab.core.text import clip
from pytest_mlab.core.trace import read_trace
from pytest_mlab.report.diffs import FileChange, changes

MAX_STEPS = 100
MAX_OBSERVATION = 2_000
MAX_ARGUMENT = 1_000


class StepView(BaseModel):
    step: int
    action: str
    args: dict[str, str]
    observation: str
    seconds: float
    exit_code: int | None
    tokens_in: int
    tokens_out: int
    cost: float
    changes: list[FileChange]
    changes_note: str = ""


class TraceView(BaseModel):
    steps: list[StepView] = []
    note: str = ""
    """Why steps are missing: no trace, or steps beyond MAX_STEPS left out."""


def step_changes(
    objects: Path, manifests: Path, recorded: list[int], step: int
) -> tuple[list[FileChange], str]:
    """Against the latest snapshot before ``step``; none if ``step`` has no snapshot.
    Content the snapshots did not keep is named in each change's note."""
    earlier = [n for n in recorded if n < step]
    if step not in recorded or not earlier:
        return [], ""
    try:
        before: Manifest = read_manifest(manifests, earlier[-1])
        after = read_manifest(manifests, step)
    except (OSError, ValueError) as exc:
        return [], f"snapshot unreadable: {exc}"
    return changes(objects, before, after)


def trace_view(trace: Path, manifests: Path, objects: Path) -> TraceView:
    if not trace.is_file():
        return TraceView(note=f"no trace at {trace}")
    steps = read_trace(trace)
    recorded = manifest_steps(manifests) if manifests.is_dir() else []
    views = []
    for step in steps[:MAX_STEPS]:
        found, note = step_changes(objects, manifests, recorded, step.step)
        views.append(StepView(
            # The trace keeps the agent's text as it was; the report shows it escaped.
            step=step.step, action=printable(step.action),
            args={printable(k): printable(clip(str(v), MAX_ARGUMENT))
                  for k, v in step.args.items()},
            observation=printable(clip(step.observation, MAX_OBSERVATION)),
            seconds=max(0.0, step.ended - step.started), exit_code=step.exit_code,
            tokens_in=int(step.usage.get("tokens_in", 0)),
            tokens_out=int(step.usage.get("tokens_out", 0)),
            cost=float(step.usage.get("cost", 0.0)), changes=found, changes_note=note,
        ))
    left_out = len(steps) - len(views)
    return TraceView(steps=views, note=f"{left_out} later steps not shown" if left_out else "")
