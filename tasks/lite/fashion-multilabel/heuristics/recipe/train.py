"""The ladder's recipe rung: a standard small CNN for multi-label images, written without
study of the task: three convolution, batch-norm and pooling blocks, global average
pooling, one sigmoid output per class, Adam for 10 epochs on every labelled scene."""

from __future__ import annotations

import scenes  # first: it sets up OpenMP before torch loads

# isort: split
import numpy as np
import torch
from scenes import N_CLASSES, seed_torch, write_submission
from threadpoolctl import threadpool_limits
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

threadpool_limits(limits=1)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

EPOCHS = 10
BATCH_SIZE = 64
LEARNING_RATE = 1e-3

seed_torch()


def block(c_in: int, c_out: int) -> list[nn.Module]:
    return [
        nn.Conv2d(c_in, c_out, kernel_size=3, padding=1),
        nn.BatchNorm2d(c_out),
        nn.ReLU(),
        nn.MaxPool2d(2),
    ]


def make_model() -> nn.Module:
    return nn.Sequential(
        nn.AvgPool2d(2),  # 56 x 56 -> 28 x 28
        *block(1, 16),
        *block(16, 32),
        *block(32, 64),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, N_CLASSES),
    )


@torch.no_grad()
def probabilities(model: nn.Module, x: torch.Tensor) -> np.ndarray:
    model.eval()
    return torch.cat([torch.sigmoid(model(batch)) for batch in x.split(500)]).numpy()


def main() -> None:
    train, test = scenes.load()
    x = torch.from_numpy(train["images"]).float().unsqueeze(1) / 255.0
    y = torch.from_numpy(train["labels"]).float()
    batches = DataLoader(TensorDataset(x, y), batch_size=BATCH_SIZE, shuffle=True)
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    loss_fn = nn.BCEWithLogitsLoss()
    for epoch in range(EPOCHS):
        model.train()
        for images, labels in batches:
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch + 1}: last batch's training loss {loss.item():.3f}")

    x_test = torch.from_numpy(test["images"]).float().unsqueeze(1) / 255.0
    write_submission(probabilities(model, x_test), test["ids"], "%.6f")


if __name__ == "__main__":
    main()
