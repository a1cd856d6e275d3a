"""Draw a seeded synthetic citation graph: papers with subject areas, features and years.

Each paper belongs to one subject area. Its feature vector is a noisy copy of its area's
centroid, and it cites earlier papers, some of its own area and preferring papers that
are already well cited. The split is by publication year, as in ogbn-arxiv: older papers
train, the next years validate, the newest are the hidden test set.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20200501
N_NODES = 6000
N_CLASSES = 20
N_FEATURES = 64
YEARS = np.arange(2008, 2021)
VALID_YEARS = (2017, 2018)
TEST_YEARS = (2019, 2020)
# Share of citations drawn from the citing paper's own subject area (the rest are drawn
# from all papers): weak enough that the citations alone, without the features, are a
# poor guide (label propagation scores well below a model of the features).
HOMOPHILY = 0.3
MEAN_CITATIONS = 5.0
CENTROID_SCALE = 0.3


def _years(rng: np.random.Generator) -> np.ndarray:
    # Publication counts grow by about a tenth each year.
    weights = 1.1 ** np.arange(len(YEARS))
    return np.sort(rng.choice(YEARS, size=N_NODES, p=weights / weights.sum()))


def _classes(rng: np.random.Generator, years: np.ndarray) -> np.ndarray:
    # Areas differ in size and drift in popularity over the years.
    base = np.log(rng.dirichlet(np.full(N_CLASSES, 2.0)))
    trend = rng.normal(0.0, 0.08, N_CLASSES)
    offset = (years - YEARS.mean())[:, None]
    logits = base[None, :] + trend[None, :] * offset
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    cumulative = probs.cumsum(axis=1)
    draws = rng.random(N_NODES)[:, None]
    return np.minimum((draws > cumulative).sum(axis=1), N_CLASSES - 1)


def _features(rng: np.random.Generator, labels: np.ndarray) -> np.ndarray:
    centroids = rng.normal(0.0, CENTROID_SCALE, (N_CLASSES, N_FEATURES))
    noise = rng.normal(0.0, 1.0, (N_NODES, N_FEATURES))
    return (centroids[labels] + noise).astype(np.float32)


def _citations(rng: np.random.Generator, labels: np.ndarray) -> np.ndarray:
    # Preferential attachment by tickets: a paper gets one ticket when published and
    # one more each time it is cited, and a citation draws a ticket at random.
    tickets: list[int] = []
    by_class: list[list[int]] = [[] for _ in range(N_CLASSES)]
    edges: list[tuple[int, int]] = []
    for node in range(N_NODES):
        own = by_class[labels[node]]
        n_cited = rng.poisson(MEAN_CITATIONS - 1) + 1
        cited: set[int] = set()
        for _ in range(n_cited):
            pool = own if own and rng.random() < HOMOPHILY else tickets
            if pool:
                cited.add(pool[rng.integers(len(pool))])
        for target in cited:
            edges.append((node, target))
            tickets.append(target)
            by_class[labels[target]].append(target)
        tickets.append(node)
        own.append(node)
    return np.array(edges, dtype=np.int64)


def prepare(public: Path, private: Path) -> None:
    rng = np.random.default_rng(SEED)
    years = _years(rng)
    labels = _classes(rng, years)
    features = _features(rng, labels)
    edges = _citations(rng, labels)

    # Node ids are shuffled so that they carry no information about the year.
    new_id = rng.permutation(N_NODES)
    order = np.argsort(new_id)
    years, labels, features = years[order], labels[order], features[order]
    edges = new_id[edges]
    edges = edges[np.lexsort((edges[:, 1], edges[:, 0]))]

    split = np.where(
        years >= TEST_YEARS[0], "test", np.where(years >= VALID_YEARS[0], "valid", "train")
    )
    ids = np.arange(N_NODES)
    known = split != "test"

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    np.save(public / "features.npy", features)
    pd.DataFrame({"source": edges[:, 0], "target": edges[:, 1]}).to_csv(
        public / "edges.csv", index=False
    )
    pd.DataFrame({"node_id": ids, "year": years, "split": split}).to_csv(
        public / "nodes.csv", index=False
    )
    pd.DataFrame({"node_id": ids[known], "label": labels[known]}).to_csv(
        public / "labels.csv", index=False
    )
    pd.DataFrame({"node_id": ids[~known], "label": labels[~known]}).to_csv(
        private / "answers.csv", index=False
    )
