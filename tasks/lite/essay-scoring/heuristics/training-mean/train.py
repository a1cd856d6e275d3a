"""Knowing nothing about an essay: every score's training mean."""

import pandas as pd

TARGETS = ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]
train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
submission = test[["id"]].assign(**{t: train[t].mean() for t in TARGETS})
submission.to_csv("submission.csv", index=False)
