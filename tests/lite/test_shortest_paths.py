"""shortest-paths: the answers are cheapest routes under a cost that no visible quantity
gives, so the textbook algorithm on the raw measurements, or on hop counts, misses most of
them, while the same algorithm on the hidden cost reproduces every one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from task_scripts import load_script

TASK = Path(__file__).parents[2] / "tasks" / "lite" / "shortest-paths"
Graphs = dict[str, np.ndarray]


def _prepare() -> ModuleType:
    module = load_script(TASK, "prepare.py")
    return module


@pytest.fixture(scope="module")
def graphs() -> Graphs:
    return _prepare().draw(np.random.default_rng(0), 40, (24, 32))  # type: ignore[no-any-return]


def _match(graphs: Graphs, cost: Callable[[np.ndarray], np.ndarray]) -> float:
    """Share of answers that Floyd-Warshall under ``cost`` of the measurements gives."""
    prepare = _prepare()
    hits = total = 0
    for g, n in enumerate(graphs["n_nodes"]):
        roads = graphs["adjacency"][g, :n, :n]
        measurements = graphs["edge_features"][g, :n, :n].astype(float)
        weights = np.where(roads, cost(measurements), np.inf)
        predicted = prepare.shortest_path_predecessors(weights)
        pairs = ~np.eye(n, dtype=bool)
        hits += int((predicted[pairs] == graphs["predecessors"][g, :n, :n][pairs]).sum())
        total += int(pairs.sum())
    return hits / total


def test_the_answers_are_cheapest_routes_under_the_hidden_cost(graphs: Graphs) -> None:
    assert _match(graphs, _prepare().edge_cost) == 1.0


@pytest.mark.parametrize("column", range(6))
def test_no_single_measurement_gives_the_routes(graphs: Graphs, column: int) -> None:
    assert _match(graphs, lambda x: x[..., column] + 1e-6) < 0.7


def test_neither_hop_counts_nor_the_sum_of_measurements_give_the_routes(
    graphs: Graphs,
) -> None:
    assert _match(graphs, lambda x: np.ones(x.shape[:-1])) < 0.5
    assert _match(graphs, lambda x: x.sum(axis=-1)) < 0.5
