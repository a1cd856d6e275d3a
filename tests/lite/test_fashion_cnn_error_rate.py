"""fashion-cnn is scored by its error rate (lower is better), not accuracy: near the
ceiling a relative improvement in accuracy is too small to stand above the noise."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from task_scripts import load_script

from pytest_mlab.core.task import load_task

TASK = Path(__file__).parent.parent.parent / "tasks" / "lite" / "fashion-cnn"


def _score(workspace: Path, private: Path) -> float:
    module = load_script(TASK, "score.py")
    return float(module.score(workspace, private))


def test_fashion_cnn_scores_the_share_of_wrong_labels(tmp_path: Path) -> None:
    ids, truth = np.arange(1, 5), np.array([0, 3, 9, 9])
    np.savez(tmp_path / "answers.npz", ids=ids, labels=truth)
    guess = truth.copy()
    guess[1] = 4
    pd.DataFrame({"id": ids[::-1], "label": guess[::-1]}).to_csv(
        tmp_path / "submission.csv", index=False
    )
    assert _score(tmp_path, tmp_path) == 0.25
    manifest = load_task(TASK / "task.toml").manifest
    assert (manifest.metric.name, manifest.metric.direction) == ("error", "lower")
