"""The ladder's recipe rung: what one writes for any text classification without reading
the texts: tf-idf of words and word pairs and logistic regression, on every training review."""

from __future__ import annotations

import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1)

CLASSES = ["other", "great"]


def main() -> None:
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    model = make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2),
        LogisticRegression(max_iter=1000),
    )
    model.fit(train["review"], train["label"] == "great")
    submission = pd.DataFrame(model.predict_proba(test["review"]), columns=CLASSES)
    submission.insert(0, "id", test["id"])
    submission.to_csv("submission.csv", index=False)


if __name__ == "__main__":
    main()
