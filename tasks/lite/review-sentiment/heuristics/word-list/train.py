"""A hand-written lexicon, no training: a review is "great" unless it holds more words
from the negative list (complaints, hedges, negations) than from the positive one."""

from __future__ import annotations

import re

import pandas as pd

POSITIVE = {
    "great", "love", "best", "delicious", "excellent", "perfect", "wonderful", "favorite",
    "amazing", "awesome", "good", "nice", "happy", "tasty",
}
NEGATIVE = {
    "bad", "not", "disappointed", "terrible", "awful", "worst", "horrible", "stale", "bland",
    "too", "but", "however", "unfortunately", "poor",
}


def balance(review: str) -> int:
    words = re.findall(r"[a-z']+", review.lower())
    return sum(word in POSITIVE for word in words) - sum(word in NEGATIVE for word in words)


def main() -> None:
    test = pd.read_csv("test.csv")
    great = (test["review"].map(balance) >= 0).astype(float)
    submission = pd.DataFrame({"id": test["id"], "other": 1 - great, "great": great})
    submission.to_csv("submission.csv", index=False)


if __name__ == "__main__":
    main()
