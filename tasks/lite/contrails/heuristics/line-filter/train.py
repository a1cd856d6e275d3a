"""The classical line detector, no learning beyond one threshold: the split-window
difference (11.2 - 12.3 um) less its smooth background, run through a bank of elongated
second-derivative-of-Gaussian kernels at twelve orientations; a pixel's response is the
strongest orientation's, and responses above a threshold (the one that gives the best
Dice on the training frames) are called contrail."""

from __future__ import annotations

import numpy as np
from frames import ridge_kernels, threshold_rule
from scipy.ndimage import gaussian_filter
from scipy.signal import fftconvolve

SIZE = 15
KERNELS = ridge_kernels(sigma_across=0.8, sigma_along=4.0, size=SIZE, angles=12)


def response(images: np.ndarray) -> np.ndarray:
    split_window = (images[:, 1] - images[:, 2]).astype(np.float64)
    detail = split_window - gaussian_filter(split_window, sigma=(0, 3, 3), mode="reflect")
    padded = np.pad(detail, ((0, 0), (SIZE // 2,) * 2, (SIZE // 2,) * 2), mode="reflect")
    return np.max([fftconvolve(padded, k[None], mode="valid") for k in KERNELS], axis=0)


best, training_dice = threshold_rule(response, lowest_quantile=0.8)
print(f"threshold {best:.4f}: training Dice {training_dice:.4f}")
