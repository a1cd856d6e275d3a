"""Score a copy of the final submission in a separate process, and judge it against the
baseline."""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pytest_mlab.core.errors import ScorerError
from pytest_mlab.core.fingerprint import read_hashes
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.core.tree import remove_tree
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.task_code import WorkerCrash, WorkerTimeout, call_worker, scorer_environ
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.sandbox.spec import SandboxSpec
from pytest_mlab.trial.submission import InvalidCopy, copy_submission


@dataclass(frozen=True)
class Scored:
    """A valid score, or the sentence saying why the submission is invalid."""

    score: float | None
    invalid: str | None = None


@dataclass(frozen=True)
class ScoringSandbox:
    """Where a scorer runs the workspace's code: a sandbox of the trial's kind, made from
    the trial's spec with the submission's copy as its workspace."""

    kind: str
    spec: SandboxSpec


def score_workspace(
    task: TaskSpec, workspace: Workspace, data: PreparedData,
    sandbox: ScoringSandbox | None = None,
) -> Scored:
    """Score a copy of the submission in a separate process; the workspace stays unread."""
    changed = workspace.changed_protected_files()
    if changed:
        if any(_shares_inode(workspace.root / rel, data.public / rel) for rel in changed):
            data.discard()
        return Scored(None, f"read-only file {changed[0]} was changed")
    # Not TemporaryDirectory: its rmtree recurses, and the scored code may leave a tree
    # thousands of folders deep.
    tmp = Path(tempfile.mkdtemp(prefix=f"mlab-score-{task.name}-"))
    try:
        folder = tmp / "submission"
        try:
            copy_submission(task, workspace, data, folder)
        except InvalidCopy as exc:
            return Scored(None, str(exc))
        return _score_copy(task, folder, data, sandbox)
    finally:
        remove_tree(tmp)


def _score_copy(
    task: TaskSpec, folder: Path, data: PreparedData, sandbox: ScoringSandbox | None
) -> Scored:
    run_in = None
    if sandbox is not None:
        public = tuple(read_hashes(data.public_hashes))
        run_in = (sandbox.kind, replace(sandbox.spec, workspace=folder, protected=public))
    try:
        reply = call_worker(
            "score", task.score_script, folder, data.private,
            timeout=task.manifest.limits.score_timeout, cwd=folder,
            env=scorer_environ(os.environ), sandbox=run_in,
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
