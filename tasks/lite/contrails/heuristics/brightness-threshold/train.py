"""A brightness rule, no learning beyond one threshold: contrails are cold, so pixels of
the 11.2 um band colder than their frame's mean by more than a margin (the one that gives
the best Dice on the training frames) are called contrail."""

from __future__ import annotations

import numpy as np
from frames import threshold_rule


def coldness(images: np.ndarray) -> np.ndarray:
    band = images[:, 1].astype(np.float64)
    return band.mean(axis=(1, 2), keepdims=True) - band


best, training_dice = threshold_rule(coldness, lowest_quantile=0.5)
print(f"margin {best:.2f} K: training Dice {training_dice:.4f}")
