"""The ladder's recipe rung: the textbook character model, n-grams of orders 1 to 4 on all the
training text, interpolated with one weight chosen on valid.txt (Jelinek-Mercer)."""

from __future__ import annotations

from pathlib import Path

import lm
import numpy as np
from evaluate import bits_per_char
from numpy.lib.stride_tricks import sliding_window_view
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1)

ORDER = 4
WEIGHTS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99)


def table(lines: list[str], order: int) -> np.ndarray:
    """Maximum-likelihood next-character probabilities per context; unseen contexts are 0."""
    pad = np.full(order - 1, lm.NEWLINE, dtype=np.int64)
    windows = np.concatenate([
        sliding_window_view(np.concatenate([pad, lm.encode(line + "\n")]), order)
        for line in lines
    ])
    # Keys read the context oldest-last, as Interpolated.predict builds them.
    keys = windows[:, -1] + lm.SIZE * (windows[:, :-1][:, ::-1] @ (
        lm.SIZE ** np.arange(order - 1, dtype=np.int64)))
    counts = np.bincount(keys, minlength=lm.SIZE**order).reshape(-1, lm.SIZE)
    totals = counts.sum(axis=1, keepdims=True)
    return (counts / np.maximum(totals, 1)).astype(np.float32)


def main() -> None:
    train = Path("train.txt").read_text(encoding="ascii").splitlines()
    valid = Path("valid.txt").read_text(encoding="ascii").splitlines()
    tables = [table(train, m) for m in range(1, ORDER + 1)]
    weight = min(WEIGHTS, key=lambda w: bits_per_char(lm.Interpolated(tables, w), valid))
    model = lm.Interpolated(tables, weight)
    print(f"Validation: {bits_per_char(model, valid):.4f} bits per character (weight {weight})")
    np.savez(lm.MODEL_FILE, order=ORDER, weight=weight,
             **{f"table{m}": t for m, t in enumerate(tables, start=1)})


if __name__ == "__main__":
    main()
