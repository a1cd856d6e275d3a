"""A constant prediction: the training text's character frequencies, whatever came before."""

from __future__ import annotations

from pathlib import Path

import lm
import numpy as np


def main() -> None:
    text = Path("train.txt").read_text(encoding="ascii")
    counts = np.bincount(lm.encode(text), minlength=len(lm.VOCAB)) + 1.0
    log_probs = np.log(counts / counts.sum()).astype(np.float32)[None, :]
    np.savez(lm.MODEL_FILE, log_probs=log_probs, order=1)
    print("Saved a unigram model to model.npz")


if __name__ == "__main__":
    main()
