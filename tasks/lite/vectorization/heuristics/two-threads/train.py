"""Heuristic: the vectorised pass split over two threads, which the one-thread rule refuses."""

from __future__ import annotations

import threading

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def _half(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int, padding: int,
    out: list[np.ndarray], slot: int,
) -> None:
    kh, kw = weights.shape[:2]
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    windows = sliding_window_view(padded, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
    out[slot] = np.einsum("nhwcij,ijcf->nhwf", windows, weights) + bias


def conv2d_forward(
    x: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int = 1, padding: int = 0
) -> np.ndarray:
    """Each thread convolves half of the batch."""
    halves = np.array_split(x, 2)
    out: list[np.ndarray] = [x, x]
    threads = [
        threading.Thread(target=_half, args=(half, weights, bias, stride, padding, out, slot))
        for slot, half in enumerate(halves)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return np.concatenate(out)
