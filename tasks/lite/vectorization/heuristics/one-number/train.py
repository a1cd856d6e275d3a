"""The ladder's one-number rung: the starter has no number that sets its speed, so the
smallest edit tried first instead: the output allocated by np.empty, not np.zeros."""

from __future__ import annotations

import numpy as np
from convolution import output_shape, pad, time_forward


def conv2d_forward(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int = 1, padding: int = 0
) -> np.ndarray:
    """Convolve a batch of images with a bank of filters and add the bias.

    x: (batch, height, width, c_in); weights: (k, k, c_in, c_out); bias: (c_out,).
    The input is zero-padded by `padding` pixels on each side and the filters move
    `stride` pixels at a time. Returns (batch, h_out, w_out, c_out), no activation.
    """
    batch, h_out, w_out, c_out = output_shape(x, weights, stride, padding)
    kh, kw = weights.shape[:2]
    padded = pad(x, padding)
    out = np.empty((batch, h_out, w_out, c_out), dtype=np.result_type(x, weights, bias))
    for n in range(batch):
        for i in range(h_out):
            for j in range(w_out):
                top, left = i * stride, j * stride
                window = padded[n, top : top + kh, left : left + kw, :]
                for f in range(c_out):
                    out[n, i, j, f] = np.sum(window * weights[:, :, :, f]) + bias[f]
    return out


if __name__ == "__main__":
    time_forward(conv2d_forward)
