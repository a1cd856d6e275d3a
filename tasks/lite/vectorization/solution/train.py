"""Forward pass of a 2-D convolution layer, vectorised with numpy."""

from __future__ import annotations

import numpy as np
from convolution import output_shape, pad, time_forward


def conv2d_forward(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int = 1, padding: int = 0
) -> np.ndarray:
    """The starter's convolution by im2col: every window gathered into one row, then one
    matrix product does all filters."""
    batch, h_out, w_out, c_out = output_shape(x, weights, stride, padding)
    kh, kw, c_in = *weights.shape[:2], x.shape[3]
    padded = pad(x, padding)
    cols = np.empty((batch, h_out, w_out, kh, kw, c_in), dtype=padded.dtype)
    for di in range(kh):
        for dj in range(kw):
            cols[:, :, :, di, dj, :] = padded[
                :,
                di : di + stride * (h_out - 1) + 1 : stride,
                dj : dj + stride * (w_out - 1) + 1 : stride,
                :,
            ]
    flat: np.ndarray = cols.reshape(-1, kh * kw * c_in) @ weights.reshape(kh * kw * c_in, c_out)
    out: np.ndarray = flat.reshape(batch, h_out, w_out, c_out) + bias
    return out


if __name__ == "__main__":
    time_forward(conv2d_forward)
