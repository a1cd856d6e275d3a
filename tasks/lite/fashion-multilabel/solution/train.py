"""Tag each Fashion-MNIST scene with the kinds of clothing it shows; write submission.csv.

A fully convolutional network scores every class at every position of a coarse grid and
takes the maximum over positions, so a class counts as present wherever it appears.
Batch normalisation, AdamW with a one-cycle schedule and mirrored scenes; test
probabilities average each scene and its mirror image. Trained on every labelled scene.
"""

from __future__ import annotations

import scenes  # first: it sets up OpenMP before torch loads

# isort: split
import numpy as np
import torch
import torch.nn.functional as F
from scenes import N_CLASSES, seed_torch, write_submission
from threadpoolctl import threadpool_limits
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

EPOCHS = 10
BATCH_SIZE = 64
MAX_LEARNING_RATE = 4e-3
WIDTH = 16

seed_torch()


def conv_bn(c_in: int, c_out: int, kernel: int, stride: int) -> list[nn.Module]:
    return [
        nn.Conv2d(c_in, c_out, kernel, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    ]


class PresenceNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            *conv_bn(1, WIDTH, kernel=4, stride=2),  # 56 -> 28
            *conv_bn(WIDTH, 2 * WIDTH, kernel=3, stride=1),
            nn.MaxPool2d(2),  # 28 -> 14
            *conv_bn(2 * WIDTH, 4 * WIDTH, kernel=3, stride=1),
            nn.MaxPool2d(2),  # 14 -> 7
            nn.Dropout(0.2),
            nn.Conv2d(4 * WIDTH, N_CLASSES, kernel_size=3, padding=1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.features(x).amax(dim=(2, 3))


def mirror_some(x: torch.Tensor) -> torch.Tensor:
    """Flip a random half of the batch left-right; a mirrored scene has the same labels."""
    flip = torch.rand(len(x)) < 0.5
    return torch.where(flip[:, None, None, None], x.flip(3), x)


@torch.no_grad()
def probabilities(model: nn.Module, x: torch.Tensor) -> np.ndarray:
    model.eval()
    scores = [(torch.sigmoid(model(b)) + torch.sigmoid(model(b.flip(3)))) / 2 for b in x.split(500)]
    return torch.cat(scores).numpy()


def main() -> None:
    train, test = scenes.load()
    x = torch.from_numpy(train["images"]).float().unsqueeze(1) / 255.0
    y = torch.from_numpy(train["labels"]).float()
    mean, std = x.mean(), x.std()
    x = (x - mean) / std
    x_test = (torch.from_numpy(test["images"]).float().unsqueeze(1) / 255.0 - mean) / std

    batches = DataLoader(TensorDataset(x, y), batch_size=BATCH_SIZE, shuffle=True)
    model = PresenceNet()
    optimizer = torch.optim.AdamW(model.parameters(), lr=MAX_LEARNING_RATE, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, MAX_LEARNING_RATE, epochs=EPOCHS, steps_per_epoch=len(batches)
    )
    for epoch in range(EPOCHS):
        model.train()
        for images, labels in batches:
            loss = F.binary_cross_entropy_with_logits(model(mirror_some(images)), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        print(f"epoch {epoch + 1}: last batch's training loss {loss.item():.3f}")

    write_submission(probabilities(model, x_test), test["ids"], "%.6f")


if __name__ == "__main__":
    main()
