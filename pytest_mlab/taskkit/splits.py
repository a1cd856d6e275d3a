"""Turn one table into a task's public train/test files and its hidden answers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd


def shuffle_and_number(table: pd.DataFrame, seed: int, id_column: str) -> pd.DataFrame:
    """The rows in a seeded random order, numbered 1, 2, ... in a new first column.

    The ids then follow the shuffled order, so they carry nothing of the source's order
    (which may follow the labels).
    """
    order = np.random.default_rng(seed).permutation(len(table))
    shuffled = table.iloc[order].reset_index(drop=True)
    shuffled.insert(0, id_column, np.arange(1, len(shuffled) + 1))
    return shuffled


def hold_out(table: pd.DataFrame, test_fraction: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, test): the first ``test_fraction`` of the rows (rounded) are the test rows."""
    n_test = round(len(table) * test_fraction)
    return table.iloc[n_test:], table.iloc[:n_test]


def emptied_columns(table: pd.DataFrame, *parts: pd.DataFrame) -> list[str]:
    """The columns that hold values in ``table`` but none in one of its ``parts``.

    Read back from a CSV file, such a column has another type in that part (an empty
    column reads as numbers), so a model fitted on one file fails on the other.
    """
    held = table.columns[table.notna().any()]
    return [column for column in held if any(part[column].isna().all() for part in parts)]


def write_csv_split(
    public: Path,
    private: Path,
    train: pd.DataFrame,
    test: pd.DataFrame,
    id_column: str,
    targets: Sequence[str],
) -> None:
    """Write public/train.csv (whole), public/test.csv (less the targets) and
    private/answers.csv (the test rows' ids and targets)."""
    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    train.to_csv(public / "train.csv", index=False)
    test.drop(columns=list(targets)).to_csv(public / "test.csv", index=False)
    test[[id_column, *targets]].to_csv(private / "answers.csv", index=False)
