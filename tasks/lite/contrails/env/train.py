"""Segment contrails in the infrared frames and write submission.npz.

A deliberately simple starting point: a small three-layer convolutional network on
the three bands, trained for a few epochs with a weighted per-pixel cross-entropy.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

EPOCHS = 4
BATCH = 32
VALIDATION = 200  # frames of train.npz held out to report a validation Dice
POS_WEIGHT = 5.0  # contrail pixels are rare: weigh them up in the loss


def normalise(images: np.ndarray) -> torch.Tensor:
    """Brightness temperatures relative to each frame's mean, in units of ~5 K."""
    anomalies = images - images.mean(axis=(2, 3), keepdims=True)
    return torch.from_numpy(anomalies / 5.0).float()


def dice(predicted: np.ndarray, truth: np.ndarray) -> float:
    """Global Dice over all pixels of all frames, as the scorer computes it."""
    overlap = np.logical_and(predicted, truth).sum()
    return float(2 * overlap / max(predicted.sum() + truth.sum(), 1))


def predict(model: nn.Module, images: torch.Tensor) -> np.ndarray:
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(images[i : i + 100]) for i in range(0, len(images), 100)])
    return (logits[:, 0] > 0).numpy().astype(np.uint8)


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(2)
    with np.load("train.npz") as train, np.load("test.npz") as test:
        images, masks = normalise(train["images"]), torch.from_numpy(train["masks"]).float()
        test_ids, test_images = test["ids"], normalise(test["images"])
    fit_x, fit_y = images[:-VALIDATION], masks[:-VALIDATION, None]

    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 1, 3, padding=1),
    )
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(POS_WEIGHT))
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(fit_x))
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            loss = loss_fn(model(fit_x[batch]), fit_y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        print(f"epoch {epoch + 1}: last batch loss {loss.item():.4f}")

    valid_dice = dice(predict(model, images[-VALIDATION:]), masks[-VALIDATION:].numpy() > 0)
    print(f"Validation Dice: {valid_dice:.4f}")
    np.savez("submission.npz", ids=test_ids, masks=predict(model, test_images))
    print(f"Wrote submission.npz with {len(test_ids)} masks")


if __name__ == "__main__":
    main()
