"""The agent's copy of ogbn-arxiv's withheld files: every test node's label -1, in the
processed graph the starter loads and in the raw labels it was processed from.

OGB's download holds the label of every node. The test nodes are those of the time split
(``split/time/test.csv.gz`` of the dataset's folder), which the agent keeps.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path, PurePosixPath

PROCESSED = "geometric_data_processed.pt"
LABELS = "node-label.csv.gz"
TEST_NODES = Path("split") / "time" / "test.csv.gz"
NO_LABEL = -1


def _test_nodes(dataset: Path) -> list[int]:
    with gzip.open(dataset / TEST_NODES, "rt") as handle:
        return [int(line) for line in handle if line.strip()]


def _raw_labels(held: Path, test: list[int]) -> bytes:
    with gzip.open(held, "rt") as handle:
        labels = handle.read().splitlines()
    for node in test:
        labels[node] = str(NO_LABEL)
    return gzip.compress(("\n".join(labels) + "\n").encode(), mtime=0)


def _processed(held: Path, test: list[int]) -> bytes:
    import torch

    # The graph OGB processed while preparing, and pickled with its classes.
    data, slices = torch.load(held, weights_only=False)
    data.y[torch.tensor(test)] = NO_LABEL
    buffer = io.BytesIO()
    torch.save((data, slices), buffer)
    return buffer.getvalue()


def blank(rel: str, held: Path, public: Path) -> bytes:
    path = PurePosixPath(rel)
    # rel is <dataset>/raw/<file> or <dataset>/processed/<file>.
    test = _test_nodes(public / path.parents[1])
    if path.name == LABELS:
        return _raw_labels(held, test)
    if path.name == PROCESSED:
        return _processed(held, test)
    return b""
