"""Fewest roads: every road costs the same (breadth-first search's answer).

No learning: Floyd-Warshall with every road costing 1, whatever its measurements.
"""

from __future__ import annotations

import numpy as np
from graphs import load, routes


def main() -> None:
    np.save("predictions.npy", routes(load("test.npz"), lambda roads: np.ones(roads.shape[:-1])))


if __name__ == "__main__":
    main()
