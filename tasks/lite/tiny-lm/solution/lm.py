"""The language model the scorer loads: an interpolated Kneser-Ney character n-gram model.

train.py counts the n-grams and saves the tables; see data_description.txt for the
interface the scorer relies on.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

# The fixed vocabulary: id 0 is the newline that ends a verse, ids 1..95 are the
# printable ASCII characters from " " (32) to "~" (126).
VOCAB = "\n" + "".join(chr(code) for code in range(32, 127))
NEWLINE = 0
SIZE = len(VOCAB)
MODEL_FILE = Path(__file__).with_name("model.npz")


def encode(text: str) -> np.ndarray:
    """Character ids of `text`, which may only hold characters of VOCAB."""
    codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.int64)
    ids = np.where(codes == ord("\n"), NEWLINE, codes - 31)
    if ids.size and (ids.min() < 0 or ids.max() >= SIZE):
        raise ValueError("text holds a character outside the vocabulary")
    return ids


class Table:
    """The n-grams of one order: sorted keys (context * SIZE + next) and their counts."""

    def __init__(self, keys: np.ndarray, counts: np.ndarray, discounts: np.ndarray) -> None:
        self.keys, self.counts, self.discounts = keys, counts, discounts

    def mix(self, contexts: np.ndarray, lower: np.ndarray) -> np.ndarray:
        """Discounted counts after each context, plus the freed mass spread as `lower`."""
        low = np.searchsorted(self.keys, contexts * SIZE)
        high = np.searchsorted(self.keys, contexts * SIZE + SIZE)
        spans = high - low
        rows = np.repeat(np.arange(len(contexts)), spans)
        starts = np.repeat(low - (np.cumsum(spans) - spans), spans)
        entries = np.arange(spans.sum()) + starts
        dense = np.zeros((len(contexts), SIZE))
        dense[rows, self.keys[entries] % SIZE] = self.counts[entries]
        total = dense.sum(axis=1, keepdims=True)
        discount = self.discounts[np.minimum(dense, 3).astype(np.int64)]
        freed = discount.sum(axis=1, keepdims=True)
        mixed = (dense - discount + freed * lower) / np.maximum(total, 1.0)
        return np.where(total > 0, mixed, lower)


class KneserNey:
    def __init__(self, tables: list[Table]) -> None:
        self.tables = tables  # tables[m - 1] holds the n-grams of order m
        self.order = len(tables)
        uniform = np.full((1, SIZE), 1.0 / SIZE)
        self.unigram = tables[0].mix(np.zeros(1, dtype=np.int64), uniform)[0]
        self.start(0)

    def start(self, n_sequences: int) -> None:
        self.history = np.full((n_sequences, self.order - 1), NEWLINE, dtype=np.int64)
        self.known = np.zeros(n_sequences, dtype=np.int64)

    def predict(self, ids: np.ndarray, previous: np.ndarray) -> np.ndarray:
        history = np.concatenate([self.history[ids, 1:], previous[:, None]], axis=1)
        self.history[ids] = history
        self.known[ids] += 1
        known = self.known[ids]
        probs = np.tile(self.unigram, (len(ids), 1))
        contexts = np.zeros(len(ids), dtype=np.int64)
        for m in range(2, self.order + 1):
            contexts += history[:, -(m - 1)] * SIZE ** (m - 2)
            # A context may reach back to the verse's opening newline, never further.
            usable = known >= m - 1
            if not usable.any():
                break
            probs[usable] = self.tables[m - 1].mix(contexts[usable], probs[usable])
        return np.log(probs)


def load() -> KneserNey:
    with np.load(MODEL_FILE) as data:
        order = int(data["order"])
        tables = [
            Table(data[f"keys{m}"], data[f"counts{m}"], data[f"discounts{m}"])
            for m in range(1, order + 1)
        ]
    return KneserNey(tables)
