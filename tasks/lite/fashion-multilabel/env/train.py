"""Tag each Fashion-MNIST scene with the kinds of clothing it shows; write submission.csv.

A plain starting point: a small CNN with one sigmoid output per class, trained briefly.
"""

from __future__ import annotations

import os

# Idle OpenMP threads spin by default, which stalls training badly when other
# processes share the CPUs; set before torch loads its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import average_precision_score
from torch import nn

N_CLASSES = 10
EPOCHS = 3
BATCH_SIZE = 64
LEARNING_RATE = 2e-3
VALIDATION_FRACTION = 0.1

torch.set_num_threads(2)
# The harness sets MLAB_SEED, so that repeated runs show the spread of the result.
torch.manual_seed(int(os.environ.get("MLAB_SEED", "0")))


def to_tensor(images: np.ndarray) -> torch.Tensor:
    """uint8 (n, 56, 56) -> float (n, 1, 56, 56) in [0, 1]."""
    return torch.from_numpy(images).float().unsqueeze(1) / 255.0


def make_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, kernel_size=5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 11 * 11, 64),
        nn.ReLU(),
        nn.Linear(64, N_CLASSES),
    )


@torch.no_grad()
def probabilities(model: nn.Module, x: torch.Tensor) -> np.ndarray:
    model.eval()
    return torch.cat([torch.sigmoid(model(batch)) for batch in x.split(500)]).numpy()


def main() -> None:
    train = np.load("train.npz")
    test = np.load("test.npz")
    x, y = to_tensor(train["images"]), torch.from_numpy(train["labels"]).float()

    order = torch.randperm(len(y))
    n_val = int(len(y) * VALIDATION_FRACTION)
    val, fit = order[:n_val], order[n_val:]

    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    loss_fn = nn.BCEWithLogitsLoss()
    for epoch in range(EPOCHS):
        model.train()
        shuffled = fit[torch.randperm(len(fit))]
        for batch in shuffled.split(BATCH_SIZE):
            optimizer.zero_grad()
            loss = loss_fn(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
        val_map = average_precision_score(y[val].numpy(), probabilities(model, x[val]))
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, validation mAP {val_map:.4f}")

    scores = probabilities(model, to_tensor(test["images"]))
    submission = pd.DataFrame(scores, columns=[str(c) for c in range(N_CLASSES)])
    submission.insert(0, "id", test["ids"])
    submission.to_csv("submission.csv", index=False, float_format="%.6f")
    print(f"Wrote submission.csv with {len(submission)} rows")


if __name__ == "__main__":
    main()
