"""A tiny, seeded task for the plugin's own tests."""

from __future__ import annotations

import random
from pathlib import Path


def prepare(public: Path, private: Path) -> None:
    rng = random.Random(7)
    values = [rng.gauss(50.0, 5.0) for _ in range(200)]
    (public / "data.txt").write_text("\n".join(f"{v:.4f}" for v in values[:150]) + "\n")
    held_out = values[150:]
    (private / "answer.txt").write_text(f"{sum(held_out) / len(held_out):.6f}\n")
