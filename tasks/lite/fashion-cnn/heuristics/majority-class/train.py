"""Predict the most common training class for every test image: a floor, not a model."""

from __future__ import annotations

import numpy as np
import pandas as pd

train = np.load("train.npz")
test = np.load("test.npz")
majority = int(np.bincount(train["labels"]).argmax())
pd.DataFrame({"id": test["ids"], "label": majority}).to_csv("submission.csv", index=False)
