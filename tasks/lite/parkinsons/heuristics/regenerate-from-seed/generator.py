"""Draw a synthetic Parkinson's cohort and cut it into a progression-forecasting task.

No installed package holds Parkinson's progression data (the AMP-PD clinical scores and
protein measurements), so prepare draws a cohort with the same structure from a fixed
seed: patients seen at months 0, 6, 12, 18, 24, 36, 48 and 60 (some visits missed, some
patients leaving early), three UPDRS-like part scores per visit, and 24 protein levels
measured in the first year. Each patient's rate of progression is a nonlinear function of
a few of the proteins (with an interaction and a threshold) and of age; scores carry
visit-to-visit noise and are rounded to whole points, so no formula recovers them.

Patients are split in two. Training patients are public with every visit; for each test
patient only the visits of the first HISTORY_MONTHS months are public, and the scores at
every later visit are the hidden answers.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20230216
N_PATIENTS = 600
TEST_FRACTION = 0.3
MONTHS = [0, 6, 12, 18, 24, 36, 48, 60]
HISTORY_MONTHS = 12
MISSED_VISIT = 0.15
N_PROTEINS = 24
PROTEIN_NOISE = 0.35
TARGETS = ["updrs_1", "updrs_2", "updrs_3"]
BASE_MEAN = np.array([8.0, 9.0, 22.0])
BASE_SD = np.array([3.0, 4.0, 8.0])
# How much of the patient's progression each part shows: motor signs (part 3) most.
PART_WEIGHT = np.array([0.35, 0.45, 1.0])
VISIT_NOISE = np.array([1.0, 1.2, 2.5])
PROTEINS = [f"P{i + 1:02d}" for i in range(N_PROTEINS)]


def prepare(public: Path, private: Path) -> None:
    rng = np.random.default_rng(SEED)
    patients, proteins = _patients(rng), rng.normal(size=(N_PATIENTS, N_PROTEINS))
    visits, measured = _visits(rng, patients, proteins, _rate(proteins, patients["age"]))

    ids = patients["patient_id"].to_numpy()
    test_patients = set(rng.permutation(ids)[: round(N_PATIENTS * TEST_FRACTION)])
    in_test = visits["patient_id"].isin(test_patients)
    later = visits["visit_month"] > HISTORY_MONTHS
    future = visits[in_test & later].reset_index(drop=True)
    future.insert(0, "Id", np.arange(1, len(future) + 1))

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    visits[~in_test].to_csv(public / "train.csv", index=False)
    visits[in_test & ~later].to_csv(public / "test_history.csv", index=False)
    future[["Id", "patient_id", "visit_month"]].to_csv(public / "test.csv", index=False)
    patients.to_csv(public / "patients.csv", index=False)
    measured.to_csv(public / "proteins.csv", index=False)
    future[["Id", *TARGETS]].to_csv(private / "answers.csv", index=False)


def _patients(rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({
        "patient_id": np.arange(1, N_PATIENTS + 1),
        "age": rng.normal(64, 9, N_PATIENTS).round(),
        "sex": np.where(rng.random(N_PATIENTS) < 0.6, "m", "f"),
    })


def _rate(proteins: np.ndarray, age: pd.Series) -> np.ndarray:
    """Part-3 points a year: mostly set by proteins P01-P04, which the agent must find."""
    a, b, c, d = proteins[:, 0], proteins[:, 1], proteins[:, 2], proteins[:, 3]
    log_rate = 0.6 * np.tanh(1.5 * a) + 0.5 * b * c + 0.4 * (d > 0.5) - 0.3 * (d < -0.8)
    return np.clip(3.0 * np.exp(log_rate) + 0.02 * (age.to_numpy() - 64), 0.2, None)


def _visits(rng: np.random.Generator, patients: pd.DataFrame, proteins: np.ndarray,
            rate: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    age = patients["age"].to_numpy()
    base = BASE_MEAN + BASE_SD * rng.normal(size=(N_PATIENTS, 3))
    base = np.clip(base + np.outer(age - 64, [0.015, 0.015, 0.045]), 0.5, None)
    scores, measured = [], []
    for p in range(N_PATIENTS):
        last_month = rng.choice([24, 36, 48, 60], p=[0.2, 0.25, 0.3, 0.25])
        for month in MONTHS:
            if month > last_month:
                break
            if month not in (0, HISTORY_MONTHS) and rng.random() < MISSED_VISIT:
                continue
            level = base[p] + PART_WEIGHT * rate[p] * month / 12
            noisy = np.clip(np.round(level + VISIT_NOISE * rng.normal(size=3)), 0, None)
            scores.append((p + 1, month, *noisy))
            if month <= HISTORY_MONTHS:
                drawn = proteins[p] + PROTEIN_NOISE * rng.normal(size=N_PROTEINS)
                measured.append((p + 1, month, *drawn.round(3)))
    visits = pd.DataFrame(scores, columns=["patient_id", "visit_month", *TARGETS])
    visits[TARGETS] = visits[TARGETS].astype(int)
    return visits, pd.DataFrame(measured, columns=["patient_id", "visit_month", *PROTEINS])
