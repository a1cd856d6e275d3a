"""What a trial's sandbox is built from: the task's resources and the trial's leases."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pytest_mlab.core.task import TaskSpec, TrialLimits
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.sandbox.environ import thread_environ
from pytest_mlab.sandbox.resources import GIB, ResourceLimits
from pytest_mlab.sandbox.spec import SandboxSpec


def sandbox_spec(
    task: TaskSpec, workspace: Workspace, gpus: tuple[str, ...], limits: TrialLimits, *,
    isolation: str, image: str, run_id: str, seed: int, prepared: Path,
    cpus: tuple[int, ...] = (), python_bin: Path | None = None, python: str = "",
) -> SandboxSpec:
    """``prepared``: the task's prepared data, which may hold folders its sandboxes mount;
    ``python_bin``: the folder whose ``python`` is the trial's interpreter (first on PATH);
    ``python``: that interpreter where it is not the harness's (a task's own environment,
    shown read-only at its own path)."""
    resources = ResourceLimits(
        memory_bytes=int(task.manifest.resources.memory_gb * GIB),
        cpu_seconds=int(limits.script_timeout * (os.cpu_count() or 1)) + 60,
        disk_bytes=int(task.manifest.resources.disk_gb * GIB),
        files=task.manifest.resources.files,
    )
    startup = task.python_startup()
    mounts = task.data_mounts(prepared)
    if startup:
        mounts = ((str(startup), str(startup)), *mounts)
    own = python and python != sys.executable
    if own:
        env_root = str(Path(python).parent.parent)
        mounts = ((env_root, env_root), *mounts)
    return SandboxSpec(
        workspace=workspace.root, protected=tuple(workspace.protected),
        hidden=tuple(task.hidden_paths()), resources=resources, gpus=gpus, cpus=cpus,
        # An empty CUDA_VISIBLE_DEVICES hides every GPU the trial did not lease.
        environment={"CUDA_VISIBLE_DEVICES": ",".join(gpus), "MLAB_SEED": str(seed),
                     **(thread_environ(len(cpus)) if cpus else {}),
                     **({"PYTHONPATH": str(startup)} if startup else {})},
        run_id=run_id, isolation=isolation, image=image,
        mounts=mounts, python_bin=python_bin, python=python if own else "",
    )
