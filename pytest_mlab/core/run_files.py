"""Where a trial's trace, snapshots and finished result live inside a run folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.env.environment import ResumePoint
from pytest_mlab.core.snapshots import manifest_steps, read_manifest, restore
from pytest_mlab.core.trace import read_trace
from pytest_mlab.env.workspace import Workspace


@dataclass(frozen=True)
class TrialFiles:
    run_dir: Path
    name: str
    """File-name-safe trial id, unique within the run."""

    @property
    def trace(self) -> Path:
        return self.run_dir / "traces" / f"{self.name}.jsonl"

    @property
    def result(self) -> Path:
        """Written when the trial is judged, so a resumed run can skip it."""
        return self.run_dir / "traces" / f"{self.name}.result.json"

    @property
    def progress(self) -> Path:
        """The latest step, for the live display; the result file marks the end."""
        return self.run_dir / "traces" / f"{self.name}.progress.json"

    @property
    def manifests(self) -> Path:
        return self.run_dir / "snapshots" / self.name

    @property
    def objects(self) -> Path:
        return self.run_dir / "snapshots" / "objects"

    def resume_into(self, workspace: Workspace) -> ResumePoint | None:
        """Put the last snapshot into ``workspace``; None if nothing was recorded."""
        if not self.trace.exists():
            return None
        steps = read_trace(self.trace)
        recorded = [n for n in manifest_steps(self.manifests) if n <= len(steps)]
        if not recorded:
            return None
        last = recorded[-1]
        manifest = read_manifest(self.manifests, last)
        restore(self.objects, manifest, workspace.root, workspace.protected)
        return ResumePoint(tuple(steps[:last]))
