"""Score shortest-path predecessor predictions by pointer accuracy on the hidden test graphs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_mlab import InvalidSubmission
from pytest_mlab.taskkit.arrays import load_npy

SUBMISSION = "predictions.npy"


def score(workspace: Path, private: Path) -> float:
    """Share of correct predecessors over all pairs (i, j), i != j, of all test graphs."""
    with np.load(private / "answers.npz") as answers:
        n_nodes, truth = answers["n_nodes"], answers["predecessors"]
    predicted = _read_submission(workspace / SUBMISSION, truth.shape)

    size = truth.shape[1]
    nodes = np.arange(size)[None, :] < n_nodes[:, None]
    real = nodes[:, :, None] & nodes[:, None, :]
    if (predicted[~real] != -1).any():
        graph = int(np.nonzero((predicted != -1) & ~real)[0][0])
        raise InvalidSubmission(
            f"{SUBMISSION} has an entry other than -1 outside the {n_nodes[graph]} nodes "
            f"of test graph {graph}; is it aligned with test.npz?"
        )
    in_range = (predicted >= 0) & (predicted < n_nodes[:, None, None])
    if not in_range[real].all():
        graph = int(np.nonzero(real & ~in_range)[0][0])
        raise InvalidSubmission(
            f"{SUBMISSION} names a node outside 0..{n_nodes[graph] - 1} in test graph {graph}."
        )
    pairs = real & ~np.eye(size, dtype=bool)
    return float(np.mean(predicted[pairs] == truth[pairs]))


def _read_submission(path: Path, shape: tuple[int, ...]) -> np.ndarray:
    # A corrupt or truncated file, a pickle, an .npz archive instead of an array, or a
    # header declaring more than the shape can need (16 bytes a value) is rejected.
    predicted = load_npy(path, max_bytes=16 * int(np.prod(shape)))
    if predicted.shape != shape:
        raise InvalidSubmission(
            f"{SUBMISSION} has shape {predicted.shape}, expected {shape} (graphs, nodes, nodes)."
        )
    if np.issubdtype(predicted.dtype, np.floating):
        if not np.isfinite(predicted).all() or (predicted != np.round(predicted)).any():
            raise InvalidSubmission(f"{SUBMISSION} holds values that are not whole numbers.")
    elif not np.issubdtype(predicted.dtype, np.integer):
        raise InvalidSubmission(f"{SUBMISSION} has dtype {predicted.dtype}, expected integers.")
    return predicted.astype(np.int64)
