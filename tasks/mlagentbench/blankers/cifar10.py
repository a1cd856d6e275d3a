"""The agent's copy of CIFAR-10's withheld files: the test batch with every label -1, so
the starter still loads it and predicts its images; anything else withheld, empty.

The batches are Python pickles of a dict whose ``labels`` list holds the classes;
torchvision reads them with ``encoding="latin1"``, which gives str keys, so the copy is
written with str keys too.
"""

from __future__ import annotations

import pickle
from pathlib import Path

TEST_BATCH = "cifar-10-batches-py/test_batch"
NO_LABEL = -1


def blank(rel: str, held: Path, public: Path) -> bytes:
    if not rel.endswith(TEST_BATCH):
        return b""
    # The file prepare.py wrote from torchvision's checked download.
    with held.open("rb") as handle:
        batch = pickle.load(handle, encoding="latin1")
    batch["labels"] = [NO_LABEL] * len(batch["labels"])
    return pickle.dumps(batch, protocol=2)
