"""The vectorization task needs no data: train.py draws its own inputs."""

from __future__ import annotations

from pathlib import Path


def prepare(public: Path, private: Path) -> None:
    """Nothing to fetch or write; the scorer draws fresh inputs on each run."""
