"""What the scripts in this workspace share: CPU set-up, the images as standardised
tensors, writing submission.csv. Import it before torch."""

from __future__ import annotations

import os

# Idle OpenMP threads spin by default, which stalls training badly when other
# processes share the CPUs; set before torch loads its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import pandas as pd
import torch


def seed_torch() -> None:
    """Seed torch from MLAB_SEED, which the harness sets so that repeated runs show the
    spread of the result (the scripts fix torch to one thread, whatever cores the run
    holds, so that the seed alone decides the score)."""
    torch.manual_seed(int(os.environ.get("MLAB_SEED", "0")))


def _pixels(images: np.ndarray) -> torch.Tensor:
    """uint8 (n, 28, 28) -> float (n, 1, 28, 28) in [0, 1]."""
    return torch.from_numpy(images).float().unsqueeze(1) / 255.0


def load_images() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, np.ndarray]:
    """Training images and labels, test images and ids; the pixels of both image sets in
    units of their spread over the training images."""
    train, test = np.load("train.npz"), np.load("test.npz")
    x, x_test = _pixels(train["images"]), _pixels(test["images"])
    mean, std = x.mean(), x.std()
    labels = torch.from_numpy(train["labels"]).long()
    return (x - mean) / std, labels, (x_test - mean) / std, test["ids"]


def write_submission(ids: np.ndarray, labels: torch.Tensor) -> None:
    """One row per test image: its id and the predicted class."""
    submission = pd.DataFrame({"id": ids, "label": labels.numpy()})
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")
