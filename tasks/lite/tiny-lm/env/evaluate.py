"""Bits per character of lm.py's model on a text file, driven the way the scorer drives it.

Usage: python evaluate.py [valid.txt]

The scorer does the same on the hidden test chapters, but in a separate process
that only ever sees the characters already revealed (see data_description.txt).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Protocol

import lm
import numpy as np


class Model(Protocol):
    """What the scorer needs from the object lm.load() returns."""

    def start(self, n_sequences: int) -> None: ...

    def predict(self, ids: np.ndarray, previous: np.ndarray) -> np.ndarray: ...


def bits_per_char(model: Model, lines: list[str]) -> float:
    """Average -log2 p(next character) over every character and line-ending newline."""
    sequences = [lm.encode(line + "\n") for line in lines]
    lengths = np.array([len(seq) for seq in sequences])
    padded = np.zeros((len(sequences), lengths.max()), dtype=np.int64)
    for row, seq in enumerate(sequences):
        padded[row, : len(seq)] = seq
    model.start(len(sequences))
    previous = np.full(len(sequences), lm.NEWLINE, dtype=np.int64)
    bits = 0.0
    for step in range(lengths.max()):
        ids = np.flatnonzero(lengths > step)
        scores = np.asarray(model.predict(ids, previous[ids]), dtype=np.float64)
        # The scorer normalises each row itself, so only relative values matter.
        top = scores.max(axis=1, keepdims=True)
        log_norm = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
        actual = padded[ids, step]
        bits -= float(np.sum(scores[np.arange(len(ids)), actual] - log_norm)) / np.log(2)
        previous[ids] = actual
    return bits / float(lengths.sum())


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "valid.txt")
    lines = path.read_text(encoding="ascii").splitlines()
    begin = time.perf_counter()
    model = lm.load()
    print(f"{path}: {bits_per_char(model, lines):.4f} bits per character "
          f"({time.perf_counter() - begin:.1f} s)")


if __name__ == "__main__":
    main()
