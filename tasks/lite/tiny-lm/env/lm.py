"""The language model the scorer loads: a character n-gram table that train.py fits.

The scorer imports this file and calls load(); see data_description.txt for the
interface it relies on. Keep load(), start() and predict() working when you change
the model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

# The fixed vocabulary: id 0 is the newline that ends a verse, ids 1..95 are the
# printable ASCII characters from " " (32) to "~" (126).
VOCAB = "\n" + "".join(chr(code) for code in range(32, 127))
NEWLINE = 0
MODEL_FILE = Path(__file__).with_name("model.npz")


def encode(text: str) -> np.ndarray:
    """Character ids of `text`, which may only hold characters of VOCAB."""
    codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.int64)
    ids = np.where(codes == ord("\n"), NEWLINE, codes - 31)
    if ids.size and (ids.min() < 0 or ids.max() >= len(VOCAB)):
        raise ValueError("text holds a character outside the vocabulary")
    return ids


class NGramModel:
    """Next-character log-probabilities looked up from the last (order - 1) characters."""

    def __init__(self, log_probs: np.ndarray, order: int) -> None:
        self.log_probs = log_probs  # (len(VOCAB) ** (order - 1), len(VOCAB))
        self.order = order
        self.powers = len(VOCAB) ** np.arange(order - 2, -1, -1, dtype=np.int64)
        self.history = np.zeros((0, max(order - 1, 1)), dtype=np.int64)

    def start(self, n_sequences: int) -> None:
        # Every verse starts right after a newline, so the history is all newlines.
        self.history = np.full((n_sequences, max(self.order - 1, 1)), NEWLINE, dtype=np.int64)

    def predict(self, ids: np.ndarray, previous: np.ndarray) -> np.ndarray:
        history = np.concatenate([self.history[ids, 1:], previous[:, None]], axis=1)
        self.history[ids] = history
        context = history[:, history.shape[1] - (self.order - 1) :] @ self.powers
        return self.log_probs[context]


def load() -> NGramModel:
    with np.load(MODEL_FILE) as data:
        return NGramModel(data["log_probs"], int(data["order"]))
