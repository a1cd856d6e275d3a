"""The recipe rung's model: character n-grams of orders 1 to 4, interpolated with one
weight (Jelinek-Mercer), each order used where its context was seen in training."""

from __future__ import annotations

from pathlib import Path

import numpy as np

VOCAB = "\n" + "".join(chr(code) for code in range(32, 127))
NEWLINE = 0
MODEL_FILE = Path(__file__).with_name("model.npz")
SIZE = len(VOCAB)


def encode(text: str) -> np.ndarray:
    """Character ids of `text`, which may only hold characters of VOCAB."""
    codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.int64)
    ids = np.where(codes == ord("\n"), NEWLINE, codes - 31)
    if ids.size and (ids.min() < 0 or ids.max() >= SIZE):
        raise ValueError("text holds a character outside the vocabulary")
    return ids


class Interpolated:
    """p(next) = weight * p_m(next | context) + (1 - weight) * the mix of the lower orders."""

    def __init__(self, tables: list[np.ndarray], weight: float) -> None:
        self.tables = tables  # tables[m - 1]: (SIZE ** (m - 1), SIZE) probabilities, 0 rows unseen
        self.order = len(tables)
        self.weight = weight
        self.start(0)

    def start(self, n_sequences: int) -> None:
        self.history = np.full((n_sequences, self.order - 1), NEWLINE, dtype=np.int64)

    def predict(self, ids: np.ndarray, previous: np.ndarray) -> np.ndarray:
        history = np.concatenate([self.history[ids, 1:], previous[:, None]], axis=1)
        self.history[ids] = history
        # The unigrams mixed with a uniform guess, so that no character has probability 0.
        unigram = self.weight * self.tables[0][0] + (1 - self.weight) / SIZE
        probs = np.tile(unigram.astype(np.float64), (len(ids), 1))
        contexts = np.zeros(len(ids), dtype=np.int64)
        for m in range(2, self.order + 1):
            contexts += history[:, -(m - 1)] * SIZE ** (m - 2)
            rows = self.tables[m - 1][contexts]
            seen = rows.sum(axis=1, keepdims=True) > 0
            probs = np.where(seen, self.weight * rows + (1 - self.weight) * probs, probs)
        return np.log(probs)


def load() -> Interpolated:
    with np.load(MODEL_FILE) as data:
        order = int(data["order"])
        return Interpolated([data[f"table{m}"] for m in range(1, order + 1)],
                            float(data["weight"]))
