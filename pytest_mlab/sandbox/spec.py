"""What a sandbox is built from: one trial's workspace, what to hide, and its limits."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mlab.sandbox.resources import ResourceLimits

SKELETON_IMAGE = "pytest-mlab-sandbox:latest"
"""The docker sandbox's default image: a root skeleton made on first use."""


@dataclass(frozen=True)
class SandboxSpec:
    """Everything a sandbox needs to know about its trial; sandboxes hold no keys.

    A third-party sandbox is a class whose constructor takes this one argument,
    registered under the entry-point group ``pytest_mlab.sandboxes``.
    """

    workspace: Path
    protected: tuple[str, ...] = ()
    """Workspace files (relative paths) scripts may read but never change."""
    hidden: tuple[Path, ...] = ()
    """Installed files and folders the answers could be read from; scripts see them empty."""
    resources: ResourceLimits = field(default_factory=ResourceLimits)
    gpus: tuple[str, ...] = ()
    """The GPUs the trial leased; every other GPU stays hidden."""
    cpus: tuple[int, ...] = ()
    """The cores the trial leased; its scripts are pinned to them (none: not pinned)."""
    environment: Mapping[str, str] = field(default_factory=dict)
    """Variables the trial adds to the sandbox's own environment; its PATH (an agent's
    tools) goes after the trial's ``python`` and before the user's PATH."""
    run_id: str = ""
    """Labels what the sandbox leaves behind, so an interrupted run can be cleaned up."""
    isolation: str = "none"
    """The local sandbox's isolation: auto, bwrap, netns or none."""
    image: str = SKELETON_IMAGE
    """The docker sandbox's image."""
    mounts: tuple[tuple[str, str], ...] = ()
    """(host folder, path inside) pairs shown read-only: an external agent's own
    installation, its trial's LLM gateway."""
    python_bin: Path | None = None
    """The folder whose ``python``, ``python3`` and ``pip`` start the trial's interpreter
    (``python_bin.py``): shown read-only, first on PATH. None: PATH as the user had it."""
    python: str = ""
    """The trial's interpreter, where it is not the harness's: a command whose program is
    the harness's (``sys.executable``) runs this one instead. Its folders must be among
    ``mounts`` where the sandbox has a mount namespace."""


@dataclass(frozen=True)
class SandboxAdditions:
    """What one trial's scripts get beyond its task's sandbox (never its scorer's)."""

    environment: Mapping[str, str] = field(default_factory=dict)
    mounts: tuple[tuple[str, str], ...] = ()

    def applied(self, spec: SandboxSpec) -> SandboxSpec:
        return dataclasses.replace(spec, environment={**spec.environment, **self.environment},
                                   mounts=(*spec.mounts, *self.mounts))


def spec_to_json(kind: str, spec: SandboxSpec) -> str:
    """The sandbox of ``kind`` made from ``spec``, as a scorer's process reads it back."""
    fields = dataclasses.asdict(spec)
    fields["workspace"] = str(spec.workspace)
    fields["hidden"] = [str(path) for path in spec.hidden]
    fields["environment"] = dict(spec.environment)
    fields["python_bin"] = str(spec.python_bin) if spec.python_bin else None
    return json.dumps({"kind": kind, "spec": fields})


def spec_from_json(text: str) -> tuple[str, SandboxSpec]:
    raw = json.loads(text)
    fields = raw["spec"]
    spec = SandboxSpec(
        workspace=Path(fields["workspace"]), protected=tuple(fields["protected"]),
        hidden=tuple(Path(path) for path in fields["hidden"]),
        resources=ResourceLimits(**fields["resources"]), gpus=tuple(fields["gpus"]),
        cpus=tuple(fields.get("cpus", ())),
        environment=fields["environment"], run_id=fields["run_id"],
        isolation=fields["isolation"], image=fields["image"],
        mounts=tuple((host, inside) for host, inside in fields.get("mounts", ())),
        python_bin=Path(fields["python_bin"]) if fields.get("python_bin") else None,
        python=str(fields.get("python", "")),
    )
    return str(raw["kind"]), spec
