"""A generated task's data comes from the data key: its regenerate-from-seed heuristic,
which runs the generator again as public code gave it, scores worse than the recorded
starter (were the answers drawn again, it would score perfectly)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from task_scripts import load_script

from pytest_mlab.core.baseline import read_record
from pytest_mlab.core.task import load_task
from pytest_mlab.env.data import prepare_task

TASKS = Path(__file__).parents[2] / "tasks" / "lite"
GENERATED = sorted(p.parent.name for p in TASKS.glob("*/task.toml")
                   if load_task(p).manifest.data.generated)
KEY = bytes(range(32))


def test_the_generated_tasks_are_those_drawn_at_random() -> None:
    assert GENERATED == ["citation-graph", "contrails", "essay-scoring", "parkinsons",
                         "shortest-paths"]


@pytest.mark.parametrize("name", GENERATED)
def test_regenerating_from_the_public_seed_scores_like_a_guess(
    name: str, tmp_path: Path
) -> None:
    task = load_task(TASKS / name / "task.toml")
    data = prepare_task(task, tmp_path / "cache", KEY)
    workspace = tmp_path / "ws"
    shutil.copytree(task.env_dir, workspace)
    shutil.copytree(data.public, workspace, dirs_exist_ok=True)
    shutil.copytree(task.heuristics_dir / "regenerate-from-seed", workspace, dirs_exist_ok=True)
    run = subprocess.run([sys.executable, "train.py"], cwd=workspace, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    score = float(load_script(task.root, "score.py").score(workspace, data.private))
    record = read_record(task)
    assert record is not None
    starter = record.mean
    worse = score < starter if task.manifest.metric.direction == "higher" else score > starter
    assert worse, f"{name}: the regenerated answers score {score:.4g}, starter {starter:.4g}"
