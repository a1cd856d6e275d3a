"""Score shortest-path predecessor predictions by pointer accuracy on the hidden test graphs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_mlab import InvalidSubmission

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
    if not path.is_file():
        raise InvalidSubmission(f"No {SUBMISSION} was written to the workspace root.")
    try:
        predicted = np.load(path, allow_pickle=False)
    # A corrupt or truncated file, a pickle, or an .npz archive instead of an array.
    except (OSError, ValueError, EOFError) as error:
        raise InvalidSubmission(f"{SUBMISSION} is not a readable .npy array ({error}).") from error
    if not isinstance(predicted, np.ndarray):
        predicted.close()
        raise InvalidSubmission(f"{SUBMISSION} holds an archive, not a single array.")
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
