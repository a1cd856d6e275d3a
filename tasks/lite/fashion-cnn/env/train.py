"""Classify Fashion-MNIST images with a small CNN and write submission.csv.

A plain starting point: a LeNet-style network trained briefly with Adam and a one-cycle
learning-rate schedule.
"""

from __future__ import annotations

import os

# Idle OpenMP threads spin by default, which stalls training badly when other
# processes share the CPUs; set before torch loads its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import pandas as pd
import torch
from torch import nn

EPOCHS = 6
BATCH_SIZE = 64
LEARNING_RATE = 3e-3
VALIDATION_FRACTION = 0.1

torch.set_num_threads(2)
# The harness sets MLAB_SEED, so that repeated runs show the spread of the result.
torch.manual_seed(int(os.environ.get("MLAB_SEED", "0")))


def to_tensor(images: np.ndarray) -> torch.Tensor:
    """uint8 (n, 28, 28) -> float (n, 1, 28, 28) in [0, 1]."""
    return torch.from_numpy(images).float().unsqueeze(1) / 255.0


def make_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, kernel_size=5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )


@torch.no_grad()
def predict(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    model.eval()
    return torch.cat([model(batch).argmax(1) for batch in x.split(500)])


def main() -> None:
    train = np.load("train.npz")
    test = np.load("test.npz")
    x, y = to_tensor(train["images"]), torch.from_numpy(train["labels"]).long()
    x_test = to_tensor(test["images"])
    # Pixels in units of their spread over the training images.
    mean, std = x.mean(), x.std()
    x, x_test = (x - mean) / std, (x_test - mean) / std

    order = torch.randperm(len(y))
    n_val = int(len(y) * VALIDATION_FRACTION)
    val, fit = order[:n_val], order[n_val:]

    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    steps = EPOCHS * -(-len(fit) // BATCH_SIZE)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, LEARNING_RATE, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(EPOCHS):
        model.train()
        shuffled = fit[torch.randperm(len(fit))]
        for batch in shuffled.split(BATCH_SIZE):
            optimizer.zero_grad()
            loss = loss_fn(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            schedule.step()
        accuracy = (predict(model, x[val]) == y[val]).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, validation accuracy {accuracy:.4f}")

    labels = predict(model, x_test).numpy()
    submission = pd.DataFrame({"id": test["ids"], "label": labels})
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")


if __name__ == "__main__":
    main()
