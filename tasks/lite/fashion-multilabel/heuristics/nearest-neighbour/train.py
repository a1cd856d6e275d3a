"""Score each class by its share among the ten training scenes nearest to a test scene
(Euclidean distance on the pixels): no training at all."""

from __future__ import annotations

import numpy as np
import pandas as pd

NEIGHBOURS = 10

train = np.load("train.npz")
test = np.load("test.npz")
known = train["images"].reshape(len(train["labels"]), -1).astype(np.float32) / 255.0
queries = test["images"].reshape(len(test["ids"]), -1).astype(np.float32) / 255.0
distances = (queries**2).sum(axis=1)[:, None] - 2 * queries @ known.T + (known**2).sum(axis=1)
nearest = np.argsort(distances, axis=1)[:, :NEIGHBOURS]
scores = train["labels"][nearest].mean(axis=1)
submission = pd.DataFrame(scores, columns=[str(c) for c in range(scores.shape[1])])
submission.insert(0, "id", test["ids"])
submission.to_csv("submission.csv", index=False)
