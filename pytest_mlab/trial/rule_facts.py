"""The rule checks' facts of a trial, from its task, workspace and the harness's folders."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_mlab.core.rule_facts import RuleFacts
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.workspace import Workspace


def rule_facts(task: TaskSpec, workspace: Workspace, harness: Sequence[Path]) -> RuleFacts:
    """``harness``: the folders of the harness that a trial's code has no business naming
    (its cache, its report folder)."""
    manifest = task.manifest
    return RuleFacts(
        submission=manifest.submission, answers=manifest.answers,
        data=dict(workspace.protected), hidden=manifest.hide,
        harness_paths=tuple(dict.fromkeys(str(path) for path in harness)),
        workspace=str(workspace.root), research_problem=manifest.research_problem,
    )
