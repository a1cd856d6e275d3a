"""Road networks as numpy arrays: loading them, cheapest routes by Floyd-Warshall, and the
pointer accuracy of predicted predecessors. train.py imports these; so may any script."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Graphs = dict[str, np.ndarray]


def load(path: str) -> Graphs:
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def subset(data: Graphs, graphs: np.ndarray | slice) -> Graphs:
    return {key: value[graphs] for key, value in data.items()}


def floyd_warshall(cost: np.ndarray) -> np.ndarray:
    """Predecessors on cheapest routes for an (n, n) cost matrix, inf where there is no road."""
    n = len(cost)
    distance = cost.copy()
    np.fill_diagonal(distance, 0.0)
    nodes = np.arange(n)
    predecessor = np.where(np.isfinite(cost), nodes[:, None], -1)
    np.fill_diagonal(predecessor, nodes)
    for k in range(n):
        through = distance[:, k, None] + distance[None, k, :]
        better = through < distance
        distance = np.where(better, through, distance)
        predecessor = np.where(better, predecessor[k][None, :], predecessor)
    return predecessor


def routes(data: Graphs, road_cost: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Predecessor matrices (graphs, size, size), -1 on padding, of Floyd-Warshall with each
    road costing ``road_cost`` of its measurements ((n, n, 6) float64 per graph)."""
    predicted = np.full(data["adjacency"].shape, -1, dtype=np.int64)
    for g, n in enumerate(data["n_nodes"]):
        roads = data["adjacency"][g, :n, :n]
        cost = road_cost(data["edge_features"][g, :n, :n].astype(np.float64))
        predicted[g, :n, :n] = floyd_warshall(np.where(roads, cost, np.inf))
    return predicted


def accuracy(predicted: np.ndarray, data: Graphs) -> float:
    """Share of correct predecessors over pairs (i, j) of distinct nodes."""
    size = predicted.shape[1]
    nodes = np.arange(size)[None, :] < data["n_nodes"][:, None]
    pairs = nodes[:, :, None] & nodes[:, None, :] & ~np.eye(size, dtype=bool)
    return float(np.mean(predicted[pairs] == data["predecessors"][pairs]))
