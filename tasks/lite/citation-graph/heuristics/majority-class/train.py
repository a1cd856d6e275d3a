"""Every test paper gets the most common subject area among the train and valid papers."""

from __future__ import annotations

import pandas as pd

nodes = pd.read_csv("nodes.csv")
labels = pd.read_csv("labels.csv")
majority = int(labels["label"].mode()[0])
test_ids = nodes.loc[nodes["split"] == "test", "node_id"]
pd.DataFrame({"node_id": test_ids, "label": majority}).to_csv("submission.csv", index=False)
