"""Copy the label of the nearest training image (Euclidean distance on the pixels): no
training at all."""

from __future__ import annotations

import numpy as np
import pandas as pd

train = np.load("train.npz")
test = np.load("test.npz")
known = train["images"].reshape(len(train["labels"]), -1).astype(np.float32) / 255.0
queries = test["images"].reshape(len(test["ids"]), -1).astype(np.float32) / 255.0
distances = (queries**2).sum(axis=1)[:, None] - 2 * queries @ known.T + (known**2).sum(axis=1)
labels = train["labels"][distances.argmin(axis=1)]
pd.DataFrame({"id": test["ids"], "label": labels}).to_csv("submission.csv", index=False)
