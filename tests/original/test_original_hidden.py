"""The Hugging Face caches an original eval.py reads its labels from are hidden from the
agent's scripts, and stay readable for the scorer (issue 15)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_docker import FakeDocker
from original_folders import write_task

from pytest_mlab.core.original_task import load_original
from pytest_mlab.sandbox import docker as docker_sandbox

OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"

# An eval.py that reads its answers from a Hugging Face cache, not from scripts/ (babylm's
# leaves its test split there).
EVAL_FROM_CACHE = """\
import csv
import os


def get_score(submission_folder="../env"):
    with open(os.path.join(os.environ["HF_HOME"], "datasets", "answer.csv")) as f:
        want = [float(r["y"]) for r in csv.DictReader(f)]
    with open(os.path.join(submission_folder, "submission.csv")) as f:
        got = [float(r["y"]) for r in csv.DictReader(f)]
    return sum(abs(a - b) for a, b in zip(got, want)) / len(want)
"""


@pytest.fixture
def caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    hf_home, datasets = tmp_path / "hf", tmp_path / "elsewhere" / "datasets"
    for folder in (hf_home / "datasets", datasets):
        folder.mkdir(parents=True)
    monkeypatch.setenv("HF_HOME", str(hf_home))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(datasets))
    return hf_home, datasets


def test_imdb_hides_every_hugging_face_cache_of_this_machine(
    tmp_path: Path, caches: tuple[Path, Path]
) -> None:
    folder = tmp_path / "imdb"
    (folder / "env").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "env" / "train.py").write_text("print('starter')\n")
    (folder / "scripts" / "research_problem.txt").write_text("Classify reviews.\n")
    task = load_original(folder, OVERLAYS, tmp_path / "shims")
    assert set(caches) <= set(task.hidden_paths())


def test_the_sandbox_shows_the_caches_empty_and_the_scorer_reads_them(
    pytester: pytest.Pytester, mlab_args: list[str], caches: tuple[Path, Path],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    hf_home, datasets = caches
    benchmarks = pytester.path / "benchmarks"
    folder = write_task(benchmarks, pytester.path / "overlays", "rows",
                        extra='hide = ["hf-cache"]')
    (folder / "scripts" / "eval.py").write_text(EVAL_FROM_CACHE)
    rows = "y\n" + "".join(f"{2 * x + 1}\n" for x in range(30, 40))
    (hf_home / "datasets" / "answer.csv").write_text(rows)
    engine = FakeDocker()
    monkeypatch.setattr(docker_sandbox, "engine_client", lambda: engine)
    # The fake engine runs its "containers" on the host: no containment to attest.
    pytester.runpytest(str(benchmarks), f"--mlab-overlays={pytester.path / 'overlays'}",
                       "--mlab-sandbox=docker", "--mlab-allow-weak-sandbox",
                       "--mlab-docker-image=image", *mlab_args
                       ).assert_outcomes(failed=1)
    (record,) = read_results()
    # The scorer found the labels in the cache: the train mean 30 against y = 61..79.
    assert record["score"] == pytest.approx(40.0), record["message"]
    # The baseline's, the trial's and its reproduction's, after the attestation's probe.
    _, *trials = engine.containers.started
    assert len(trials) == 3
    for container in trials:
        tmpfs = container.kwargs["tmpfs"]
        assert (tmpfs[str(hf_home)], tmpfs[str(datasets)]) == ("ro", "ro")
