"""A trial's reproduction: after the turn, the final workspace's entry script runs once more
in a fresh sandbox, made as the trial's was, on a clean copy of the workspace (its
submission removed, the public data placed anew), and what it writes is scored.

A sandbox or scorer that fails raises (an ``InfrastructureError``: the trial is an error);
a script that fails, or writes no valid submission, is the agent's, and says so.
"""

from __future__ import annotations

import stat
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.core.task import TaskSpec
from pytest_mlab.core.tree import lstat_at, remove_tree
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.sandbox import ExecResult, Sandbox
from pytest_mlab.trial.clean_copy import clean_copy
from pytest_mlab.trial.scoring import Scored, ScoringSandbox, score_workspace


@dataclass(frozen=True)
class Reproducer:
    """How a trial is reproduced: ``sandbox`` makes a sandbox as the trial's for another
    workspace; ``timeout`` is the task's time limit for one script."""

    sandbox: Callable[[Workspace], Sandbox]
    timeout: float
    strict: bool = False
    """--mlab-strict: an unreproduced trial fails."""


def _status(entry: str, ran: ExecResult, timeout: float) -> str | None:
    """What went wrong with the run, in words; None when it ran to completion."""
    if ran.stopped_by:
        return f"{entry} was stopped: {ran.stopped_by}"
    if ran.timed_out:
        return f"{entry} was stopped after {timeout:g} seconds (the task's script time limit)"
    if ran.returncode != 0:
        return f"{entry} failed with exit code {ran.returncode}"
    return None


def _run_entry(task: TaskSpec, copy: Workspace, reproducer: Reproducer) -> str | None:
    """Run the entry script in a sandbox of its own, stopped whole before the scorer reads;
    what went wrong, in words."""
    entry = task.manifest.entry
    sandbox = reproducer.sandbox(copy)
    try:
        argv = [sys.executable, f"./{entry}" if entry.startswith("-") else entry]
        ran = sandbox.run(argv, reproducer.timeout)
        stop_all = getattr(sandbox, "stop_all", None)  # optional, as in run_trial
        if stop_all is not None:
            stop_all()
    finally:
        close = getattr(sandbox, "close", None)
        if close is not None:
            close()
    return _status(entry, ran, reproducer.timeout)


def reproduce(
    task: TaskSpec, workspace: Workspace, data: PreparedData, reproducer: Reproducer,
    scoring: ScoringSandbox | None,
) -> Scored:
    """The score of what the entry script writes on a clean copy of ``workspace``, or why
    there is none; the copy is removed afterwards."""
    # Not TemporaryDirectory: its rmtree recurses, and the script may leave a deep tree.
    tmp = Path(tempfile.mkdtemp(prefix=f"mlab-reproduce-{task.name}-"))
    try:
        copy = clean_copy(task, workspace, data, tmp / "workspace")
        info = lstat_at(copy.root, task.manifest.entry)
        if info is None or not stat.S_ISREG(info.st_mode):
            return Scored(None, f"the entry script {task.manifest.entry} is not a file in the "
                                "final workspace")
        trouble = _run_entry(task, copy, reproducer)
        scored = score_workspace(task, copy, data, scoring)
        if scored.score is None and trouble is not None:
            return Scored(None, f"{trouble}, and {scored.invalid}")
        return scored
    finally:
        remove_tree(tmp)
