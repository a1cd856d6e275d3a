"""All measurements at once: a road costs the sum of its six measurements.

No learning: Floyd-Warshall on a cost read straight off the visible measurements.
"""

from __future__ import annotations

import numpy as np
from graphs import load, routes


def main() -> None:
    np.save("predictions.npy", routes(load("test.npz"), lambda roads: roads.sum(axis=-1)))


if __name__ == "__main__":
    main()
