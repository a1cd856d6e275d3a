"""Character pair counts of the whole training text: the next character given only the one
before it (add-one smoothed)."""

from __future__ import annotations

from pathlib import Path

import lm
import numpy as np


def main() -> None:
    size = len(lm.VOCAB)
    counts = np.ones((size, size))
    for line in Path("train.txt").read_text(encoding="ascii").splitlines():
        ids = np.concatenate([[lm.NEWLINE], lm.encode(line + "\n")])
        np.add.at(counts, (ids[:-1], ids[1:]), 1.0)
    log_probs = np.log(counts / counts.sum(axis=1, keepdims=True)).astype(np.float32)
    np.savez(lm.MODEL_FILE, log_probs=log_probs, order=2)


if __name__ == "__main__":
    main()
