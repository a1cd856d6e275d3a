"""What every version of train.py's conv2d_forward shares: the output's shape, the zero
padding, and a local run on the shapes the scorer times."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

Forward = Callable[[np.ndarray, np.ndarray, np.ndarray, int, int], np.ndarray]


def output_shape(
    x: np.ndarray, weights: np.ndarray, stride: int, padding: int
) -> tuple[int, int, int, int]:
    """(batch, h_out, w_out, c_out) of convolving x (batch, height, width, c_in) with
    weights (k, k, c_in, c_out), the filters moving `stride` pixels at a time."""
    batch, height, width, _ = x.shape
    kh, kw, _, c_out = weights.shape
    h_out = (height + 2 * padding - kh) // stride + 1
    w_out = (width + 2 * padding - kw) // stride + 1
    return batch, h_out, w_out, c_out


def pad(x: np.ndarray, padding: int) -> np.ndarray:
    """x with `padding` zero pixels added on each side of its height and width."""
    return np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))


def time_forward(conv2d_forward: Forward) -> None:
    """Run conv2d_forward once on the shapes the scorer times, on this run's seed."""
    # The scorer's inputs are fresh random draws of these shapes.
    rng = np.random.default_rng(int(os.environ.get("MLAB_SEED", "0")))
    x = rng.standard_normal((16, 32, 32, 8))
    weights = rng.standard_normal((3, 3, 8, 16))
    bias = rng.standard_normal(16)
    start = time.perf_counter()
    result = conv2d_forward(x, weights, bias, 1, 1)
    elapsed = time.perf_counter() - start
    print(f"output shape: {result.shape}")
    print(f"forward pass took {elapsed:.4f} s (for information; the harness times it itself)")
