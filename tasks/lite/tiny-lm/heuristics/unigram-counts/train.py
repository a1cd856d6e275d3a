"""Character frequencies of the training text, whatever came before (add-one smoothed)."""

from __future__ import annotations

from pathlib import Path

import lm
import numpy as np


def main() -> None:
    text = Path("train.txt").read_text(encoding="ascii")
    counts = np.bincount(lm.encode(text), minlength=len(lm.VOCAB)) + 1.0
    log_probs = np.log(counts / counts.sum()).astype(np.float32)[None, :]
    np.savez(lm.MODEL_FILE, log_probs=log_probs, order=1)


if __name__ == "__main__":
    main()
