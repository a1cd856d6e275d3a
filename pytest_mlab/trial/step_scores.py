"""Score a trial's snapshots afterwards, so a report can show the score over steps."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pytest_mlab.core.results import StepScore
from pytest_mlab.core.run_files import TrialFiles
from pytest_mlab.core.snapshots import describe_missing, manifest_steps, read_manifest, restore
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.core.tree import remove_tree
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.workspace import provision_workspace
from pytest_mlab.trial.scoring import ScoringSandbox, score_workspace


def score_steps(
    task: TaskSpec, data: PreparedData, files: TrialFiles, every: int,
    sandbox: ScoringSandbox | None = None,
) -> list[StepScore]:
    """Scores of steps 0, every, 2*every, ... and of the last step. A step whose
    snapshot did not keep every file is not scored; its record says which were missing."""
    steps = manifest_steps(files.manifests)
    chosen = [n for n in steps if n % every == 0]
    if steps and steps[-1] not in chosen:
        chosen.append(steps[-1])
    scores = []
    for step in chosen:
        tmp = Path(tempfile.mkdtemp(prefix=f"mlab-step-{step}-"))
        try:  # not TemporaryDirectory: a restored tree may be too deep for its rmtree
            workspace = provision_workspace(task, data, tmp / "workspace")
            manifest = read_manifest(files.manifests, step)
            missing = restore(files.objects, manifest, workspace.root, workspace.protected)
            if missing:
                scores.append(StepScore(step=step, score=None,
                                        invalid="not scored, the snapshot lacks "
                                        f"{describe_missing(missing)}"))
                continue
            scored = score_workspace(task, workspace, data, sandbox)
        finally:
            remove_tree(tmp)
        scores.append(StepScore(step=step, score=scored.score, invalid=scored.invalid))
    return scores
