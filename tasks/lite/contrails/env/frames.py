"""Helpers shared by the scripts here: the Dice score, oriented ridge kernels, and a
one-threshold rule fitted on the training frames."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def dice(predicted: np.ndarray, truth: np.ndarray) -> float:
    """Global Dice over all pixels of all frames, as the scorer computes it."""
    overlap = np.logical_and(predicted, truth).sum()
    return float(2 * overlap / max(predicted.sum() + truth.sum(), 1))


def ridge_kernels(
    sigma_across: float, sigma_along: float = 4.0, size: int = 15, angles: int = 12
) -> np.ndarray:
    """(angles, size, size) elongated second-derivative-of-Gaussian kernels: each responds
    to bright thin lines at one orientation."""
    offsets = np.arange(size) - size // 2
    rows, cols = np.meshgrid(offsets, offsets, indexing="ij")
    kernels = []
    for angle in np.linspace(0, np.pi, angles, endpoint=False):
        along = cols * np.cos(angle) + rows * np.sin(angle)
        across = -cols * np.sin(angle) + rows * np.cos(angle)
        kernel = (
            np.exp(-(along**2) / (2 * sigma_along**2))
            * (1 - across**2 / sigma_across**2)
            * np.exp(-(across**2) / (2 * sigma_across**2))
        )
        kernel -= kernel.mean()
        kernels.append(kernel / np.abs(kernel).sum())
    return np.stack(kernels)


def threshold_rule(
    response_of: Callable[[np.ndarray], np.ndarray], lowest_quantile: float
) -> tuple[float, float]:
    """Call contrail every pixel whose response exceeds the threshold (one of 40 quantiles
    from lowest_quantile up) with the best Dice on the training frames; write
    submission.npz and return the threshold and its training Dice."""
    with np.load("train.npz") as train, np.load("test.npz") as test:
        response, truth = response_of(train["images"]), train["masks"] > 0
        test_ids, test_response = test["ids"], response_of(test["images"])
    candidates = np.quantile(response, np.linspace(lowest_quantile, 0.995, 40))
    best = max(candidates, key=lambda t: dice(response > t, truth))
    np.savez("submission.npz", ids=test_ids, masks=(test_response > best).astype(np.uint8))
    return float(best), dice(response > best, truth)
