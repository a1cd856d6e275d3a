"""The ladder's recipe rung: a generic segmentation recipe, written without insight into
contrails: a small U-Net on the standardised bands, trained on whole frames with Adam, a
one-cycle schedule and cross-entropy plus soft Dice."""

from __future__ import annotations

import os

# Idle OpenMP threads spin by default, which stalls training badly when other
# processes share the CPUs; set before torch loads its OpenMP runtime.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch
import torch.nn.functional as F
from frames import dice
from threadpoolctl import threadpool_limits
from torch import nn

threadpool_limits(limits=1)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

EPOCHS = 12
BATCH = 16
LEARNING_RATE = 3e-3
VALIDATION = 200
WIDTH = 8


def conv(c_in: int, c_out: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU(),
        nn.Conv2d(c_out, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU(),
    )


class UNet(nn.Module):
    def __init__(self, c_in: int, width: int) -> None:
        super().__init__()
        self.down1, self.down2 = conv(c_in, width), conv(width, 2 * width)
        self.middle = conv(2 * width, 4 * width)
        self.up2, self.up1 = conv(6 * width, 2 * width), conv(3 * width, width)
        self.out = nn.Conv2d(width, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d1 = self.down1(x)
        d2 = self.down2(F.max_pool2d(d1, 2))
        m = self.middle(F.max_pool2d(d2, 2))
        u2 = self.up2(torch.cat([F.interpolate(m, scale_factor=2), d2], dim=1))
        u1 = self.up1(torch.cat([F.interpolate(u2, scale_factor=2), d1], dim=1))
        return self.out(u1)


def predict(model: nn.Module, images: torch.Tensor) -> np.ndarray:
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(images[i : i + 100]) for i in range(0, len(images), 100)])
    return (logits[:, 0] > 0).numpy().astype(np.uint8)


def main() -> None:
    torch.manual_seed(int(os.environ.get("MLAB_SEED", "0")))
    with np.load("train.npz") as train, np.load("test.npz") as test:
        images = torch.from_numpy(train["images"]).float()
        masks = torch.from_numpy(train["masks"]).float()[:, None]
        test_ids, test_images = test["ids"], torch.from_numpy(test["images"]).float()
    mean = images.mean(dim=(0, 2, 3), keepdim=True)
    std = images.std(dim=(0, 2, 3), keepdim=True)
    images, test_images = (images - mean) / std, (test_images - mean) / std
    fit_x, fit_y = images[:-VALIDATION], masks[:-VALIDATION]

    model = UNet(images.shape[1], WIDTH)
    steps = EPOCHS * -(-len(fit_x) // BATCH)
    optimiser = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, LEARNING_RATE, total_steps=steps)
    for epoch in range(EPOCHS):
        model.train()
        for batch in torch.randperm(len(fit_x)).split(BATCH):
            logits, target = model(fit_x[batch]), fit_y[batch]
            p = torch.sigmoid(logits)
            soft_dice = (2 * (p * target).sum() + 1) / (p.sum() + target.sum() + 1)
            loss = F.binary_cross_entropy_with_logits(logits, target) + 1 - soft_dice
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        print(f"epoch {epoch + 1}: last batch loss {loss.item():.4f}")

    valid_dice = dice(predict(model, images[-VALIDATION:]), masks[-VALIDATION:, 0].numpy() > 0)
    print(f"Validation Dice: {valid_dice:.4f}")
    np.savez("submission.npz", ids=test_ids, masks=predict(model, test_images))
    print(f"Wrote submission.npz with {len(test_ids)} masks")


if __name__ == "__main__":
    main()
