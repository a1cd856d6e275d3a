"""Segment contrails in the infrared frames and write submission.npz.

Contrails are thin ice clouds: they show best in the difference of the 11.2 and 12.3
micrometre bands, where cloud decks cancel out. The difference is high-passed and run
through a bank of oriented ridge filters, which respond to thin lines and not to broad
cirrus; a small convolutional network then classifies each pixel from these responses
and the bands, and the mask threshold is tuned for Dice on held-out frames. Training runs
on random crops to save time; the network is fully convolutional, so it segments whole
frames.
"""

from __future__ import annotations

import os
import time

# Idle OpenMP threads spin by default, which stalls training badly when other
# processes share the CPUs; set before torch loads its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import torch.nn.functional as F
from frames import dice, ridge_kernels
from threadpoolctl import threadpool_limits
from torch import nn

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

VALIDATION = 200
EPOCHS = 80
BATCH = 16
CROP = 32  # train on random crops: a quarter of the arithmetic per frame


# Bright thin lines at twelve orientations, two widths.
BANKS = [torch.tensor(ridge_kernels(s)[:, None], dtype=torch.float32) for s in (0.8, 1.4)]


def blur(x: torch.Tensor, sigma: float) -> torch.Tensor:
    radius = int(3 * sigma) + 1
    taps = torch.exp(-(torch.arange(-radius, radius + 1.0) ** 2) / (2 * sigma**2))
    taps /= taps.sum()
    x = F.pad(x, [radius] * 4, mode="reflect")
    x = F.conv2d(x, taps.view(1, 1, 1, -1))
    return F.conv2d(x, taps.view(1, 1, -1, 1))


def features(images: np.ndarray) -> torch.Tensor:
    x = torch.from_numpy(images).float()
    x = x - x.mean(dim=(2, 3), keepdim=True)
    split_window = x[:, 1:2] - x[:, 2:3]  # 11.2 - 12.3 um: ice shows, clouds cancel
    short_wave = x[:, 0:1] - x[:, 1:2]
    detail = split_window - blur(split_window, 3.0)
    out = [
        x / 5, split_window, short_wave, detail, blur(detail, 0.8),
        short_wave - blur(short_wave, 3.0), x[:, 1:2] - blur(x[:, 1:2], 3.0),
        blur(split_window, 4.0),
    ]
    for bank in BANKS:
        response = F.conv2d(F.pad(detail, [7] * 4, mode="reflect"), bank)
        strongest = response.max(dim=1, keepdim=True).values
        out += [strongest, response.mean(dim=1, keepdim=True), blur(strongest, 1.5),
                F.max_pool2d(strongest, 5, 1, 2)]
    return torch.cat(out, dim=1)


def batched_features(images: np.ndarray) -> torch.Tensor:
    return torch.cat([features(images[i : i + 200]) for i in range(0, len(images), 200)])


def probabilities(model: nn.Module, x: torch.Tensor) -> np.ndarray:
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(x[i : i + 100]) for i in range(0, len(x), 100)])
    return torch.sigmoid(logits[:, 0]).numpy()


def main() -> None:
    begin = time.perf_counter()
    torch.manual_seed(int(os.environ.get("MLAB_SEED", "0")))
    with np.load("train.npz") as train, np.load("test.npz") as test:
        x, masks = batched_features(train["images"]), train["masks"]
        test_ids, test_x = test["ids"], batched_features(test["images"])
    mean, std = x.mean(dim=(0, 2, 3), keepdim=True), x.std(dim=(0, 2, 3), keepdim=True)
    x, test_x = (x - mean) / std, (test_x - mean) / std
    y = torch.from_numpy(masks).float()[:, None]
    fit_x, fit_y, valid_x = x[:-VALIDATION], y[:-VALIDATION], x[-VALIDATION:]
    print(f"{x.shape[1]} feature maps ready after {time.perf_counter() - begin:.0f} s")

    width = 16
    model = nn.Sequential(
        nn.Conv2d(x.shape[1], width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=2, dilation=2), nn.ReLU(),
        nn.Conv2d(width, 1, 1),
    )
    steps_per_epoch = (len(fit_x) + BATCH - 1) // BATCH
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=5e-3, total_steps=EPOCHS * steps_per_epoch, pct_start=0.15
    )
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(fit_x))
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            row, col = torch.randint(0, fit_x.shape[-1] - CROP + 1, (2,)).tolist()
            window = (batch, slice(None), slice(row, row + CROP), slice(col, col + CROP))
            logits, target = model(fit_x[window]), fit_y[window]
            p = torch.sigmoid(logits)
            soft_dice = (2 * (p * target).sum() + 1) / (p.sum() + target.sum() + 1)
            loss = F.binary_cross_entropy_with_logits(logits, target) + 1 - soft_dice
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}")

    valid_p = probabilities(model, valid_x)
    valid_truth = masks[-VALIDATION:] > 0
    thresholds = np.linspace(0.2, 0.8, 13)
    scores = [dice(valid_p > t, valid_truth) for t in thresholds]
    threshold = float(thresholds[int(np.argmax(scores))])
    print(f"Validation Dice: {max(scores):.4f} at threshold {threshold:.2f}")

    predicted = (probabilities(model, test_x) > threshold).astype(np.uint8)
    np.savez("submission.npz", ids=test_ids, masks=predicted)
    print(f"Wrote submission.npz with {len(test_ids)} masks ({time.perf_counter() - begin:.0f} s)")


if __name__ == "__main__":
    main()
