"""Nearest neighbour: each test review takes the label of the training review closest to
it by cosine similarity of TF-IDF word vectors."""

from __future__ import annotations

import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer


def main() -> None:
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    vectorizer = TfidfVectorizer()
    known = vectorizer.fit_transform(train["review"])
    # TF-IDF rows have unit length, so the dot product is the cosine similarity.
    nearest = (vectorizer.transform(test["review"]) @ known.T).toarray().argmax(axis=1)
    great = (train["label"].to_numpy()[nearest] == "great").astype(float)
    submission = pd.DataFrame({"id": test["id"], "other": 1 - great, "great": great})
    submission.to_csv("submission.csv", index=False)


if __name__ == "__main__":
    main()
