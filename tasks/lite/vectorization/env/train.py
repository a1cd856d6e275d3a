"""Forward pass of a 2-D convolution layer, written with plain Python loops."""

from __future__ import annotations

import os
import time

import numpy as np


def conv2d_forward(
    x: np.ndarray,
    weights: np.ndarray,
    bias: np.ndarray,
    stride: int = 1,
    padding: int = 0,
) -> np.ndarray:
    """Convolve a batch of images with a bank of filters and add the bias.

    x: (batch, height, width, c_in); weights: (k, k, c_in, c_out); bias: (c_out,).
    The input is zero-padded by `padding` pixels on each side and the filters move
    `stride` pixels at a time. Returns (batch, h_out, w_out, c_out), no activation.
    """
    batch, height, width, _ = x.shape
    kh, kw, _, c_out = weights.shape
    h_out = (height + 2 * padding - kh) // stride + 1
    w_out = (width + 2 * padding - kw) // stride + 1
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    out = np.zeros((batch, h_out, w_out, c_out), dtype=np.result_type(x, weights, bias))
    for n in range(batch):
        for i in range(h_out):
            for j in range(w_out):
                top, left = i * stride, j * stride
                window = padded[n, top : top + kh, left : left + kw, :]
                for f in range(c_out):
                    out[n, i, j, f] = np.sum(window * weights[:, :, :, f]) + bias[f]
    return out


if __name__ == "__main__":
    # The same shapes the scorer times; its inputs are fresh random draws.
    rng = np.random.default_rng(int(os.environ.get("MLAB_SEED", "0")))
    x = rng.standard_normal((4, 32, 32, 8))
    weights = rng.standard_normal((3, 3, 8, 16))
    bias = rng.standard_normal(16)
    start = time.perf_counter()
    result = conv2d_forward(x, weights, bias, stride=1, padding=1)
    elapsed = time.perf_counter() - start
    print(f"output shape: {result.shape}")
    print(f"forward pass took {elapsed:.4f} s (for information; the harness times it itself)")
