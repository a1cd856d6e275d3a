"""Hooks other plugins and conftest.py files may implement."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_mlab.analysis.gate import GateReport
    from pytest_mlab.core.results import RunResults, TrialResult
    from pytest_mlab.core.task import TaskSpec
    from pytest_mlab.env.workspace import Workspace
    from pytest_mlab.sandbox import Sandbox
    from pytest_mlab.sandbox.spec import SandboxAdditions


@pytest.hookspec(firstresult=True)
def pytest_mlab_make_sandbox(
    config: pytest.Config, task: TaskSpec, workspace: Workspace, gpus: tuple[str, ...],
    seed: int, cpus: tuple[int, ...], additions: SandboxAdditions | None,
) -> Sandbox | None:
    """Return the sandbox a trial's scripts run in (``seed`` is their MLAB_SEED; ``cpus``,
    the cores it holds, to pin them to; ``additions``, the variables and read-only mounts
    an external agent needs). The built-in one is ``trylast``."""


def pytest_mlab_trial_result(config: pytest.Config, result: TrialResult) -> None:
    """Called on the controller (never an xdist worker) once per finished trial."""


@pytest.hookspec(firstresult=True)
def pytest_mlab_run_written(session: pytest.Session, run: RunResults) -> GateReport | None:
    """Called on the controller once results.json is written, before report.html is.
    Return the comparison of the run with another, for the report to show."""
