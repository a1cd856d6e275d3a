"""Constant prediction: every passage gets the training mean of each target."""

from __future__ import annotations

import pandas as pd

TARGETS = [
    "word_length",
    "vocabulary",
    "sentence_length",
    "punctuation",
    "readability",
    "archaism",
]


def main() -> None:
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    submission = pd.DataFrame({"id": test["id"]})
    for target in TARGETS:
        submission[target] = train[target].mean()
    submission.to_csv("submission.csv", index=False)


if __name__ == "__main__":
    main()
