"""Each test paper gets the area of the train or valid paper whose feature vector is
nearest (Euclidean), no training and no citations."""

from __future__ import annotations

import numpy as np
import pandas as pd

features = np.load("features.npy").astype(np.float64)
nodes = pd.read_csv("nodes.csv")
labels = pd.read_csv("labels.csv")
known_x, known_y = features[labels["node_id"]], labels["label"].to_numpy()
test_ids = nodes.loc[nodes["split"] == "test", "node_id"].to_numpy()
test_x = features[test_ids]
distances = (
    (test_x**2).sum(axis=1)[:, None] - 2 * test_x @ known_x.T + (known_x**2).sum(axis=1)[None]
)
predicted = known_y[distances.argmin(axis=1)]
pd.DataFrame({"node_id": test_ids, "label": predicted}).to_csv("submission.csv", index=False)
