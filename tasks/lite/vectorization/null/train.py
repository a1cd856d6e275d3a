"""The null submission: the right shape, all zeros."""

from __future__ import annotations

import numpy as np


def conv2d_forward(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int = 1, padding: int = 0
) -> np.ndarray:
    """Zeros of the output's shape, without convolving."""
    kh, kw, _, c_out = weights.shape
    h_out = (x.shape[1] + 2 * padding - kh) // stride + 1
    w_out = (x.shape[2] + 2 * padding - kw) // stride + 1
    return np.zeros((x.shape[0], h_out, w_out, c_out))
