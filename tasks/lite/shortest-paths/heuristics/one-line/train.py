"""The ladder's one-line rung: a road costs 1 - p instead of -log p, p being the
probability that it is the cheapest route between its ends."""

from __future__ import annotations

import os

import numpy as np
from graphs import Graphs, accuracy, load, routes, subset
from threadpoolctl import threadpool_limits

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)

SEED = int(os.environ.get("MLAB_SEED", "0"))
VALID_SHARE = 0.2


def road_examples(data: Graphs) -> tuple[np.ndarray, np.ndarray]:
    """Measurements of every road (u, v) and whether it is the cheapest route from u to v."""
    graph, u, v = np.nonzero(data["adjacency"])
    return data["edge_features"][graph, u, v], data["predecessors"][graph, u, v] == u


class LogisticRegression:
    """P(road is the cheapest route between its ends | measurements), fitted by Newton's
    method on the log-likelihood with a light L2 penalty on the weights."""

    def __init__(self, penalty: float = 1.0, steps: int = 30) -> None:
        self.penalty, self.steps = penalty, steps
        self.weights = np.zeros(0)

    def fit(self, x: np.ndarray, y: np.ndarray) -> LogisticRegression:
        design = np.column_stack([np.ones(len(x)), x.astype(np.float64)])
        ridge = self.penalty * np.eye(design.shape[1])
        ridge[0, 0] = 0.0  # the intercept is not penalised
        self.weights = np.zeros(design.shape[1])
        for _ in range(self.steps):
            p = 1.0 / (1.0 + np.exp(-design @ self.weights))
            gradient = design.T @ (p - y) + ridge @ self.weights
            hessian = (design * (p * (1 - p))[:, None]).T @ design + ridge
            self.weights -= np.linalg.solve(hessian, gradient)
        return self

    def probability(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(self.weights[0] + x @ self.weights[1:])))


def predict(model: LogisticRegression, data: Graphs) -> np.ndarray:
    """Predecessor matrices (graphs, size, size), -1 on padding."""
    return routes(data, lambda roads: 1.0 - model.probability(roads))


def main() -> None:
    graphs = load("train.npz")
    test = load("test.npz")
    order = np.random.default_rng(SEED).permutation(len(graphs["n_nodes"]))
    n_valid = int(VALID_SHARE * len(order))
    train, valid = subset(graphs, order[n_valid:]), subset(graphs, order[:n_valid])

    model = LogisticRegression().fit(*road_examples(train))
    print(f"Validation accuracy: {accuracy(predict(model, valid), valid):.4f}")

    np.save("predictions.npy", predict(model, test))
    print(f"Wrote predictions.npy for {len(test['n_nodes'])} test graphs")


if __name__ == "__main__":
    main()
