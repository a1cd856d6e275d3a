"""A one-measurement rule: a road costs one of its measurements, the one whose
Floyd-Warshall routes match the most training answers.

No learning beyond that choice of one column out of six.
"""

from __future__ import annotations

import numpy as np
from graphs import Graphs, accuracy, load, routes, subset


def routes_by(data: Graphs, column: int) -> np.ndarray:
    # A small floor keeps every cost positive.
    return routes(data, lambda roads: roads[..., column] + 1e-6)


def main() -> None:
    train = subset(load("train.npz"), slice(200))
    test = load("test.npz")
    hits = [
        accuracy(routes_by(train, column), train)
        for column in range(train["edge_features"].shape[-1])
    ]
    best = int(np.argmax(hits))
    print(f"measurement {best} matches {hits[best]:.3f} of the training answers")
    np.save("predictions.npy", routes_by(test, best))


if __name__ == "__main__":
    main()
