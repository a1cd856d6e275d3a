"""Forward pass of a 2-D convolution layer, vectorised with numpy."""

from __future__ import annotations

import numpy as np
from convolution import output_shape, pad, time_forward


def conv2d_forward(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int = 1, padding: int = 0
) -> np.ndarray:
    """The starter's convolution as one matrix product per filter tap: each of the k * k
    taps multiplies the whole (strided) shifted image by its (c_in, c_out) weights, and the
    products add up. No windows are copied (im2col's k * k copies of the image took about
    half as long again)."""
    batch, h_out, w_out, c_out = output_shape(x, weights, stride, padding)
    kh, kw = weights.shape[:2]
    padded = pad(x, padding)
    out = np.empty((batch, h_out, w_out, c_out), dtype=np.result_type(x, weights, bias))
    out[...] = bias
    for di in range(kh):
        for dj in range(kw):
            shifted = padded[
                :,
                di : di + stride * (h_out - 1) + 1 : stride,
                dj : dj + stride * (w_out - 1) + 1 : stride,
                :,
            ]
            out += shifted @ weights[di, dj]
    return out


if __name__ == "__main__":
    time_forward(conv2d_forward)
