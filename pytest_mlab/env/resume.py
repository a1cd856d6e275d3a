"""Continuing an interrupted trial: its recorded steps, and its last snapshot restored."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mlab.core.run_files import TrialFiles
from pytest_mlab.core.snapshots import manifest_steps, read_manifest, restore
from pytest_mlab.core.trace import Step, read_trace
from pytest_mlab.env.workspace import Workspace


@dataclass(frozen=True)
class ResumePoint:
    """Where an interrupted trial stopped: its steps and the time they took."""

    steps: tuple[Step, ...]

    @property
    def seconds(self) -> float:
        """Time used before the interruption (the time between steps included)."""
        return self.steps[-1].ended - self.steps[0].started if self.steps else 0.0


def resume_into(files: TrialFiles, workspace: Workspace) -> ResumePoint | None:
    """Put the trial's last snapshot into ``workspace``; None if nothing was recorded."""
    if not files.trace.exists():
        return None
    steps = read_trace(files.trace)
    recorded = [n for n in manifest_steps(files.manifests) if n <= len(steps)]
    if not recorded:
        return None
    last = recorded[-1]
    restore(files.objects, read_manifest(files.manifests, last), workspace.root,
            workspace.protected)
    return ResumePoint(tuple(steps[:last]))
