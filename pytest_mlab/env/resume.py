"""Continuing an interrupted trial: its recorded steps, and its last snapshot restored."""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_mlab.core.run_files import TrialFiles
from pytest_mlab.core.snapshots import describe_missing, manifest_steps, read_manifest, restore
from pytest_mlab.core.trace import Step, read_trace
from pytest_mlab.env.workspace import Workspace


@dataclass(frozen=True)
class ResumePoint:
    """Where an interrupted trial stopped: its steps and the time they took."""

    steps: tuple[Step, ...]
    not_restored: dict[str, str] = field(default_factory=dict)
    """Files of the last snapshot whose content was not kept, with why; the workspace
    holds them as provisioned, or not at all."""

    @property
    def seconds(self) -> float:
        """Time used before the interruption (the time between steps included)."""
        return self.steps[-1].ended - self.steps[0].started if self.steps else 0.0

    @property
    def note(self) -> str:
        """What the agent is told when it carries on; empty if everything was restored."""
        if not self.not_restored:
            return ""
        return (f"[The trial resumed after step {len(self.steps)}, but these files could "
                f"not be restored: {describe_missing(self.not_restored)}.]")


def resume_into(files: TrialFiles, workspace: Workspace) -> ResumePoint | None:
    """Put the trial's last snapshot into ``workspace``; None if nothing was recorded."""
    if not files.trace.exists():
        return None
    steps = read_trace(files.trace)
    recorded = [n for n in manifest_steps(files.manifests) if n <= len(steps)]
    if not recorded:
        return None
    last = recorded[-1]
    missing = restore(files.objects, read_manifest(files.manifests, last), workspace.root,
                      workspace.protected)
    return ResumePoint(tuple(steps[:last]), missing)
