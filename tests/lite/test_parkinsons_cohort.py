"""parkinsons draws its cohort from a fixed seed: the same files whatever MLAB_SEED says,
test patients disjoint from training patients, and nothing after month 12 of a test
patient public."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from task_scripts import load_script

TASK = Path(__file__).parent.parent.parent / "tasks" / "lite" / "parkinsons"


def _prepare(root: Path) -> tuple[Path, Path]:
    module = load_script(TASK, "prepare.py")
    public, private = root / "public", root / "private"
    module.prepare(public, private)
    return public, private


def test_the_cohort_ignores_mlab_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLAB_SEED", "0")
    first, _ = _prepare(tmp_path / "a")
    monkeypatch.setenv("MLAB_SEED", "1001")
    second, _ = _prepare(tmp_path / "b")
    for name in ("train.csv", "test_history.csv", "test.csv", "patients.csv", "proteins.csv"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_no_later_visit_of_a_test_patient_is_public(tmp_path: Path) -> None:
    public, private = _prepare(tmp_path)
    train = pd.read_csv(public / "train.csv")
    history = pd.read_csv(public / "test_history.csv")
    test = pd.read_csv(public / "test.csv")
    answers = pd.read_csv(private / "answers.csv")
    assert not set(train["patient_id"]) & set(test["patient_id"])
    assert history["visit_month"].max() == 12
    assert test["visit_month"].min() > 12
    assert set(test["patient_id"]) <= set(history["patient_id"])
    assert sorted(answers["Id"]) == sorted(test["Id"])
    proteins = pd.read_csv(public / "proteins.csv")
    assert proteins["visit_month"].max() == 12
