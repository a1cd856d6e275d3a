"""One feature, no model: longer essays score higher. Each score is read off the
training scores' distribution at the essay's length rank among the test essays."""

import numpy as np
import pandas as pd

TARGETS = ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]
train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
rank = test["text"].str.split().str.len().rank(pct=True)
submission = pd.DataFrame({t: np.quantile(train[t], rank) for t in TARGETS})
submission.insert(0, "id", test["id"])
submission.to_csv("submission.csv", index=False)
