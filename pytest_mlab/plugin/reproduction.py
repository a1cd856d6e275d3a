"""A trial's reproducer, from the run's settings: the sandbox of its reproduction is made
by the same hook as the trial's, with the trial's GPUs, cores and seed."""

from __future__ import annotations

import pytest

from pytest_mlab.env.workspace import Workspace
from pytest_mlab.plugin.keys import SETTINGS_KEY
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.trial.reproduction_run import Reproducer
from pytest_mlab.trial.spec import TrialSpec


def reproducer_for(
    config: pytest.Config, spec: TrialSpec, gpus: tuple[str, ...], cpus: tuple[int, ...]
) -> Reproducer | None:
    """None where --mlab-reproduce leaves the trial's task out."""
    overrides = config.stash[SETTINGS_KEY].overrides
    if not overrides.reproduces(spec.task):
        return None

    def sandbox(workspace: Workspace) -> Sandbox:
        # No gateway nor agent venv: the entry script runs as Execute Script runs it.
        made: Sandbox = config.hook.pytest_mlab_make_sandbox(
            config=config, task=spec.task, workspace=workspace, gpus=gpus,
            seed=spec.mlab_seed, cpus=cpus, additions=None,
        )
        return made

    timeout = overrides.limits_for(spec.task).script_timeout
    return Reproducer(sandbox, timeout, overrides.strict)
