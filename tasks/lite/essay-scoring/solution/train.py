"""Predict six analytic scores of essays and write submission.csv.

Raters answer to many small signals at once. Each essay is summarised by rates of such
signals: sentence lengths, commas, repeated rarer words, linking words, rare and unseen
words (unseen ones are mostly misspellings), doubled words, missing capitals and full
stops, vocabulary variety. Word rarity is counted over all training and test essays. A
ridge regression on spline expansions of those rates predicts all six scores together,
so each score borrows strength from the signals of the others.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise

import numpy as np
import pandas as pd
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import SplineTransformer, StandardScaler
from threadpoolctl import threadpool_limits

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)

TARGETS = ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]
WORD = re.compile(r"[A-Za-z]+")
SENTENCE_START = re.compile(r"(?:^|[.?!]\s+)([A-Za-z])")
LINKS = {"and", "but", "for", "therefore", "then", "so", "moreover", "yet", "also"}
RARE, UNSEEN = 30, 2  # corpus counts at or below which a word is rare, or likely a typo


def statistics(essay: str, counts: Counter[str]) -> dict[str, float]:
    words = [word.lower() for word in WORD.findall(essay)]
    n = len(words)
    sentences = max(essay.count("."), 1)
    starts = SENTENCE_START.findall(essay)
    rare = [word for word in words if UNSEEN < counts[word] <= RARE]
    sentence_lengths = [len(s.split()) for s in re.split(r"[.?!]", essay) if s.strip()]
    return {
        "log_words": np.log(n),
        "words_per_sentence": n / sentences,
        "sentence_length_sd": float(np.std(sentence_lengths)),
        "commas": essay.count(",") / n,
        "distinct": len(set(words)) / n,
        "rare": len(rare) / n,
        "rare_repeated": (len(rare) - len(set(rare))) / n,
        "unseen": sum(counts[word] <= UNSEEN for word in words) / n,
        "doubled": sum(a == b for a, b in pairwise(words)) / n,
        "links": sum(word in LINKS for word in words) / n,
        "capitals": float(np.mean([s.isupper() for s in starts])) if starts else 0.0,
        "ends_with_stop": float(essay.rstrip().endswith(".")),
        "letters_per_word": sum(map(len, words)) / n,
    }


def features(essays: pd.Series, counts: Counter[str]) -> pd.DataFrame:
    return pd.DataFrame([statistics(essay, counts) for essay in essays])


def make_model() -> Pipeline:
    return make_pipeline(
        StandardScaler(), SplineTransformer(n_knots=5), RidgeCV(alphas=np.logspace(-2, 3, 20))
    )


def mcrmse(true: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean(np.sqrt(np.mean((true - predicted) ** 2, axis=0))))


def main() -> None:
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    corpus = pd.concat([train["text"], test["text"]])
    counts = Counter(word.lower() for essay in corpus for word in WORD.findall(essay))
    x, y = features(train["text"], counts), train[TARGETS].to_numpy()

    x_fit, x_val, y_fit, y_val = train_test_split(x, y, test_size=0.2, random_state=0)
    model = make_model().fit(x_fit, y_fit)
    print(f"Validation MCRMSE: {mcrmse(y_val, model.predict(x_val)):.4f}")

    model = make_model().fit(x, y)
    submission = pd.DataFrame(model.predict(features(test["text"], counts)), columns=TARGETS)
    submission.insert(0, "id", test["id"])
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")


if __name__ == "__main__":
    main()
