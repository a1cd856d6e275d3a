"""The null submission: the right shape, all zeros."""

from __future__ import annotations

import numpy as np
from convolution import output_shape


def conv2d_forward(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int = 1, padding: int = 0
) -> np.ndarray:
    """Zeros of the output's shape, without convolving."""
    return np.zeros(output_shape(x, weights, stride, padding))
