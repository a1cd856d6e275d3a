"""A fixed band-difference filter, no learning beyond one threshold: ice cools the
12.3 um band more than the 11.2 um one, so the split-window difference (11.2 - 12.3 um)
less its smooth background marks thin ice. Pixels above a threshold, the one that gives
the best Dice on the training frames, are called contrail."""

from __future__ import annotations

import numpy as np
from frames import threshold_rule
from scipy.ndimage import gaussian_filter


def detail(images: np.ndarray) -> np.ndarray:
    split_window = (images[:, 1] - images[:, 2]).astype(np.float64)
    return split_window - gaussian_filter(split_window, sigma=(0, 3, 3), mode="reflect")


best, training_dice = threshold_rule(detail, lowest_quantile=0.8)
print(f"threshold {best:.3f} K: training Dice {training_dice:.4f}")
