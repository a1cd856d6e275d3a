"""Draw random road networks and their all-pairs shortest-path predecessors.

Each graph is connected and undirected: a random spanning tree plus random extra roads.
Every road has six anonymous measurements in [0, 1]; its travel cost is a function of
four of them, drawn from the data key: which four is not published, so the routes can
only be found by learning that function from the training graphs and their answers. The
function's weights are fixed, not drawn: they set how far a linear model falls short of it,
and a draw of them moved the starter's accuracy by up to 0.08 from one key to the next.
The targets come from Floyd-Warshall on those costs.
Training graphs have 8 to 16 nodes; the hidden test graphs have 24 to 32, so a model
must generalise to larger graphs than it has seen, as in the CLRS benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.sparse.csgraph import floyd_warshall

from pytest_mlab.taskkit.secret import secret_rng

N_TRAIN, TRAIN_SIZES = 1000, (8, 16)
N_TEST, TEST_SIZES = 100, (24, 32)
EXTRA_EDGE_PROBABILITY = (0.05, 0.3)
N_FEATURES = 6


class HiddenCost:
    """exp(a * x[raises] - b * x[lowers] + c * x[p] * x[q]); the other two do not matter.

    ``raises`` makes a road up to about twelvefold dearer and ``lowers`` cheaper, so neither
    one measurement, nor their sum, nor the number of roads says which route is cheapest.
    """

    # Not a dataclass: the harness loads this file as a module that sys.modules lacks.
    def __init__(self, columns: tuple[int, int, int, int],
                 weights: tuple[float, float, float]) -> None:
        self.columns = columns
        """raises, lowers, p, q."""
        self.weights = weights
        """a, b, c."""

    def __call__(self, measurements: np.ndarray) -> np.ndarray:
        x, (up, down, p, q), (a, b, c) = measurements, self.columns, self.weights
        return np.asarray(np.exp(a * x[..., up] - b * x[..., down] + c * x[..., p] * x[..., q]))


REFERENCE_COST = HiddenCost((0, 1, 2, 3), (2.5, 1.5, 1.0))
"""The family's middle member, on the first four columns: for tests of its character."""


def draw_cost(rng: np.random.Generator) -> HiddenCost:
    """A member of the family: the reference's weights on four of the six columns."""
    up, down, p, q = (int(c) for c in rng.permutation(N_FEATURES)[:4])
    return HiddenCost((up, down, p, q), REFERENCE_COST.weights)


def edge_cost(measurements: np.ndarray) -> np.ndarray:
    """The reference member's cost of roads with measurements (..., 6)."""
    return REFERENCE_COST(measurements)


def shortest_path_predecessors(cost: np.ndarray) -> np.ndarray:
    """Floyd-Warshall on an (n, n) cost matrix with inf for absent roads.

    Entry (i, j) of the result is the node before j on the shortest path from i to j,
    and i on the diagonal. scipy's implementation, not the workspace's own: the answers
    do not rest on code the agent is given.
    """
    _, predecessor = floyd_warshall(cost, directed=True, return_predecessors=True)
    predecessor = np.where(predecessor < 0, -1, predecessor)
    np.fill_diagonal(predecessor, np.arange(len(cost)))
    return np.asarray(predecessor, dtype=np.int64)


def random_graph(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Adjacency (n, n) bool and road measurements (n, n, 6), symmetric, zero off the roads."""
    adjacency = np.zeros((n, n), dtype=bool)
    order = rng.permutation(n)
    for position in range(1, n):
        parent = order[rng.integers(position)]
        adjacency[order[position], parent] = True
    upper = np.triu(rng.random((n, n)) < rng.uniform(*EXTRA_EDGE_PROBABILITY), k=1)
    adjacency |= upper
    adjacency |= adjacency.T
    measurements = rng.uniform(0.0, 1.0, (N_FEATURES, n, n))
    measurements = np.triu(measurements, k=1)
    measurements = (measurements + measurements.transpose(0, 2, 1)).transpose(1, 2, 0)
    return adjacency, np.where(adjacency[..., None], measurements, 0.0).astype(np.float32)


def draw(
    rng: np.random.Generator, count: int, sizes: tuple[int, int],
    cost: Callable[[np.ndarray], np.ndarray] = edge_cost,
) -> dict[str, np.ndarray]:
    """`count` graphs padded to the largest size, routed under ``cost``; padding is False,
    0 and -1."""
    size = sizes[1]
    n_nodes = rng.integers(sizes[0], sizes[1] + 1, count)
    adjacency = np.zeros((count, size, size), dtype=bool)
    measurements = np.zeros((count, size, size, N_FEATURES), dtype=np.float32)
    predecessors = np.full((count, size, size), -1, dtype=np.int64)
    for g, n in enumerate(n_nodes):
        adjacency[g, :n, :n], measurements[g, :n, :n] = random_graph(rng, n)
        # The cost is computed from the float32 measurements as published.
        roads = measurements[g, :n, :n].astype(np.float64)
        weights = np.where(adjacency[g, :n, :n], cost(roads), np.inf)
        predecessors[g, :n, :n] = shortest_path_predecessors(weights)
    return {
        "n_nodes": n_nodes,
        "adjacency": adjacency,
        "edge_features": measurements,
        "predecessors": predecessors,
    }


def prepare(public: Path, private: Path) -> None:
    rng = secret_rng("shortest-paths")
    cost = draw_cost(rng)
    train = draw(rng, N_TRAIN, TRAIN_SIZES, cost)
    test = draw(rng, N_TEST, TEST_SIZES, cost)
    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        public / "train.npz",
        n_nodes=train["n_nodes"],
        adjacency=train["adjacency"],
        edge_features=train["edge_features"],
        predecessors=train["predecessors"],
    )
    np.savez_compressed(
        public / "test.npz",
        n_nodes=test["n_nodes"],
        adjacency=test["adjacency"],
        edge_features=test["edge_features"],
    )
    np.savez_compressed(
        private / "answers.npz", n_nodes=test["n_nodes"], predecessors=test["predecessors"]
    )
