"""What every script in this workspace shares: CPU set-up, loading the scenes, writing
submission.csv. Import it before torch."""

from __future__ import annotations

import os

# Idle OpenMP threads spin by default, which stalls training badly when other
# processes share the CPUs; set before torch loads its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import pandas as pd

N_CLASSES = 10


def seed_torch() -> None:
    """Seed torch from MLAB_SEED, which the harness sets so that repeated runs show the
    spread of the result (the scripts fix torch to one thread, whatever cores the run
    holds, so that the seed alone decides the score)."""
    import torch

    torch.manual_seed(int(os.environ.get("MLAB_SEED", "0")))


def load() -> tuple[np.lib.npyio.NpzFile, np.lib.npyio.NpzFile]:
    """The training scenes (images, labels) and the test scenes (ids, images)."""
    return np.load("train.npz"), np.load("test.npz")


def write_submission(scores: np.ndarray, ids: np.ndarray, float_format: str | None = None) -> None:
    """One row per test scene: its id and a score for each class."""
    submission = pd.DataFrame(scores, columns=[str(c) for c in range(scores.shape[1])])
    submission.insert(0, "id", ids)
    submission.to_csv("submission.csv", index=False, float_format=float_format)
    print(f"Wrote submission.csv with {len(submission)} rows")
