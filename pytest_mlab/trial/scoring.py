"""Score a final workspace in a separate process, and judge it against the baseline."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pytest_mlab.core.errors import ScorerError
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.task_code import WorkerCrash, WorkerTimeout, call_worker
from pytest_mlab.env.workspace import Workspace


@dataclass(frozen=True)
class Scored:
    """A valid score, or the sentence saying why the submission is invalid."""

    score: float | None
    invalid: str | None = None


def score_workspace(task: TaskSpec, workspace: Workspace, data: PreparedData) -> Scored:
    changed = workspace.changed_protected_files()
    if changed:
        if any(_shares_inode(workspace.root / rel, data.public / rel) for rel in changed):
            data.discard()
        return Scored(None, f"read-only file {changed[0]} was changed")
    try:
        reply = call_worker(
            "score", task.score_script, workspace.root, data.private,
            timeout=task.manifest.limits.score_timeout, cwd=data.private.parent,
        )
    except (WorkerTimeout, WorkerCrash) as exc:
        raise ScorerError(f"{task.name}: {exc}") from None
    if "crash" in reply:
        raise ScorerError(
            f"{task.name}: score.py raised {reply['crash']}\n{reply['traceback']}"
        )
    if "invalid" in reply:
        return Scored(None, str(reply["invalid"]))
    score = float(reply["score"])
    if not math.isfinite(score):
        return Scored(None, f"the score is {score}")
    return Scored(score)


def _shares_inode(first: Path, second: Path) -> bool:
    try:
        return first.samefile(second)
    except OSError:
        return False


def improvement(score: float, baseline: float, direction: Literal["higher", "lower"]) -> float:
    """Relative improvement over the baseline; positive is better in either direction."""
    if baseline == 0:
        raise ScorerError("the baseline is 0, so a relative improvement is undefined")
    gain = score - baseline if direction == "higher" else baseline - score
    return gain / abs(baseline)


def _num(value: float) -> str:
    return f"{value:.6g}"


def judgement(metric: str, score: float, baseline: float, gain: float, threshold: float) -> str:
    """The numbers in words, e.g. ``mae=18210.4 is 6.1% better than ...``."""
    word = "better" if gain >= 0 else "worse"
    return (
        f"{metric}={_num(score)} is {abs(gain):.1%} {word} than baseline "
        f"{_num(baseline)} (needed {threshold * 100:g}%)"
    )
