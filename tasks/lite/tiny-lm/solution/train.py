"""Fit an interpolated Kneser-Ney character 9-gram model and save it for lm.py to load.

Each order keeps its n-grams as sorted integer keys with counts: raw counts at the
highest order and for n-grams opening a verse, continuation counts (the number of
distinct characters seen before the n-gram) below. Discounts follow the modified
Kneser-Ney estimates (Chen and Goodman, 1998), one set per order.
"""

from __future__ import annotations

import time
from pathlib import Path

import lm
import numpy as np
from evaluate import bits_per_char
from threadpoolctl import threadpool_limits

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)

ORDER = 9  # 96**9 still fits the int64 keys


def discounts(counts: np.ndarray) -> np.ndarray:
    """Discounts for counts 0, 1, 2 and 3+, from the count-of-counts."""
    n1, n2, n3, n4 = (np.sum(counts == k) for k in (1, 2, 3, 4))
    if min(n1, n2, n3, n4) == 0:
        return np.array([0.0, 0.5, 0.75, 0.9])
    y = n1 / (n1 + 2 * n2)
    return np.array([0.0, 1 - 2 * y * n2 / n1, 2 - 3 * y * n3 / n2, 3 - 4 * y * n4 / n3])


def fit(lines: list[str], order: int) -> lm.KneserNey:
    ids = lm.encode("\n" + "\n".join(lines) + "\n")
    positions = np.arange(len(ids))
    newlines = np.flatnonzero(ids == lm.NEWLINE)
    # The newline that opened the verse each position belongs to.
    opening = newlines[np.maximum(np.searchsorted(newlines, positions) - 1, 0)]
    raw: list[tuple[np.ndarray, np.ndarray]] = []
    keys = np.zeros(len(ids), dtype=np.int64)
    for m in range(1, order + 1):
        keys = np.concatenate([[0], keys[:-1]]) * lm.SIZE + ids
        inside = (positions - (m - 1) >= opening) & (positions > 0)
        unique, counts = np.unique(keys[inside], return_counts=True)
        raw.append((unique, counts.astype(np.float64)))
    tables = []
    for m in range(1, order + 1):
        unique, counts = raw[m - 1]
        if m < order:
            longer = raw[m][0]
            suffixes, preceding = np.unique(longer % lm.SIZE**m, return_counts=True)
            continuation = np.zeros(len(unique))
            continuation[np.searchsorted(unique, suffixes)] = preceding
            # Nothing comes before a verse's opening newline: keep its raw counts.
            opens_verse = unique // lm.SIZE ** (m - 1) == lm.NEWLINE if m > 1 else False
            counts = np.where(opens_verse, counts, continuation)
            keep = counts > 0
            unique, counts = unique[keep], counts[keep]
        tables.append(lm.Table(unique, counts.astype(np.float32), discounts(counts)))
    return lm.KneserNey(tables)


def save(model: lm.KneserNey) -> None:
    arrays: dict[str, np.ndarray] = {"order": np.array(model.order)}
    for m, table in enumerate(model.tables, start=1):
        arrays |= {f"keys{m}": table.keys, f"counts{m}": table.counts,
                   f"discounts{m}": table.discounts}
    np.savez(lm.MODEL_FILE, **arrays)


def main() -> None:
    train = Path("train.txt").read_text(encoding="ascii").splitlines()
    valid = Path("valid.txt").read_text(encoding="ascii").splitlines()
    begin = time.perf_counter()
    model = fit(train, ORDER)
    print(f"Fitted order {ORDER} in {time.perf_counter() - begin:.1f} s")
    print(f"Validation: {bits_per_char(model, valid):.4f} bits per character")
    # The final model also learns from the validation chapters.
    save(fit(train + valid, ORDER))
    print(f"Saved the model to {lm.MODEL_FILE.name}")


if __name__ == "__main__":
    main()
