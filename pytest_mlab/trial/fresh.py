"""A trial in a temporary workspace that records nothing: how baselines are measured and
tasks validated, through the same path as every trial."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.core.baseline import Baseline
from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.agent import Agent
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.workspace import Workspace, provision_workspace
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.trial.run import TrialParts, run_trial
from pytest_mlab.trial.scoring import ScoringSandbox
from pytest_mlab.trial.spec import Overrides, TrialSpec


@dataclass(frozen=True)
class SandboxMaker:
    """Makes a fresh workspace's sandboxes, as for a trial whose MLAB_SEED is given."""

    scripts: Callable[[Workspace, int], Sandbox]
    scoring: Callable[[Workspace, int], ScoringSandbox] | None = None


def run_fresh(
    task: TaskSpec, data: PreparedData, agent: Agent, spec: TrialSpec,
    make_sandbox: SandboxMaker, baseline: Baseline | None = None,
) -> TrialResult:
    """Run ``agent`` once in a fresh workspace and judge it (against ``baseline``, or as a
    recording when there is none)."""
    with tempfile.TemporaryDirectory(prefix=f"mlab-{spec.agent}-{task.name}-") as tmp:
        workspace = provision_workspace(task, data, Path(tmp) / "workspace")
        sandbox = make_sandbox.scripts(workspace, spec.mlab_seed)
        scoring = make_sandbox.scoring
        try:
            return run_trial(TrialParts(
                nodeid=f"{task.name} ({spec.agent}, seed {spec.mlab_seed})", spec=spec,
                data=data, baseline=baseline, workspace=workspace, sandbox=sandbox,
                agent=agent, limits=task.manifest.limits,
                threshold=Overrides().threshold_for(task), keep_workspace="none",
                scoring=scoring(workspace, spec.mlab_seed) if scoring else None,
            ))
        finally:
            sandbox.close()
