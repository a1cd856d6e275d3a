"""Score each class by its share among the ten training scenes nearest to a test scene
(Euclidean distance on the pixels): no training at all."""

from __future__ import annotations

import numpy as np
from scenes import load, write_submission

NEIGHBOURS = 10

train, test = load()
known = train["images"].reshape(len(train["labels"]), -1).astype(np.float32) / 255.0
queries = test["images"].reshape(len(test["ids"]), -1).astype(np.float32) / 255.0
distances = (queries**2).sum(axis=1)[:, None] - 2 * queries @ known.T + (known**2).sum(axis=1)
nearest = np.argsort(distances, axis=1)[:, :NEIGHBOURS]
write_submission(train["labels"][nearest].mean(axis=1), test["ids"])
