"""Score a contrail submission by the global Dice coefficient against the hidden masks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_mlab import InvalidSubmission
from pytest_mlab.taskkit.arrays import load_npz

SIZE = 64


def score(workspace: Path, private: Path) -> float:
    with np.load(private / "answers.npz") as answers:
        answer_ids, truth = answers["ids"], answers["masks"].astype(bool)
    ids, masks = _read_submission(workspace / "submission.npz", len(answer_ids))

    if len(np.unique(ids)) != len(ids):
        values, counts = np.unique(ids, return_counts=True)
        raise InvalidSubmission(f"submission.npz repeats id {values[counts > 1][0]}.")
    unknown = np.setdiff1d(ids, answer_ids)
    if len(unknown):
        raise InvalidSubmission(f"submission.npz has id {unknown[0]}, which is not in test.npz.")
    missing = np.setdiff1d(answer_ids, ids)
    if len(missing):
        raise InvalidSubmission(
            f"submission.npz lacks {len(missing)} test ids, e.g. id {missing[0]}."
        )

    order = np.argsort(ids)
    predicted = masks[order[np.searchsorted(ids[order], answer_ids)]]
    overlap = np.logical_and(predicted, truth).sum()
    return float(2 * overlap / (predicted.sum() + truth.sum()))


def _read_submission(path: Path, n_answers: int) -> tuple[np.ndarray, np.ndarray]:
    # Eight bytes a value: int64 masks are accepted too.
    arrays = load_npz(path, ("ids", "masks"), max_bytes=8 * n_answers * SIZE * SIZE)
    ids, masks = arrays["ids"], arrays["masks"]
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise InvalidSubmission("submission.npz's ids must be a 1-D array of integers.")
    if masks.shape != (len(ids), SIZE, SIZE):
        raise InvalidSubmission(
            f"submission.npz's masks have shape {masks.shape}, expected ({len(ids)}, 64, 64)."
        )
    if masks.dtype != np.bool_ and not np.issubdtype(masks.dtype, np.integer):
        raise InvalidSubmission(
            f"submission.npz's masks have dtype {masks.dtype}; use uint8 (or bool) 0/1 values."
        )
    if not np.isin(masks, (0, 1)).all():
        raise InvalidSubmission("submission.npz's masks hold values other than 0 and 1.")
    return ids.astype(np.int64), masks.astype(bool)
