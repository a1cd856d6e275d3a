"""Predict six measured properties of Bible passages and write submission.csv.

Each passage is summarised by style statistics (word and sentence lengths, vocabulary
variety, punctuation rates, a syllable estimate, archaic word forms). A ridge regression
on spline expansions of those statistics then predicts all six targets.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import SplineTransformer, StandardScaler

TARGETS = [
    "word_length",
    "vocabulary",
    "sentence_length",
    "punctuation",
    "readability",
    "archaism",
]
WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
VOWELS = re.compile(r"[aeiouy]+")
SENTENCE_END = re.compile(r"[.?!]+")
ARCHAIC = frozenset(
    {
        "thee",
        "thou",
        "thy",
        "thine",
        "ye",
        "hath",
        "doth",
        "hast",
        "dost",
        "art",
        "shalt",
        "wilt",
        "saith",
        "unto",
    }
)


def statistics(passage: str) -> dict[str, float]:
    words = WORD.findall(passage)
    lower = [word.lower() for word in words]
    n = len(words)
    words_per_sentence = n / max(len(SENTENCE_END.findall(passage)), 1)
    syllables_per_word = sum(max(len(VOWELS.findall(word)), 1) for word in lower) / n
    return {
        "log_words": np.log(n),
        "letters_per_word": sum(map(len, words)) / n,
        "distinct_share": len(set(lower)) / n,
        "words_per_sentence": words_per_sentence,
        "log_words_per_sentence": np.log(words_per_sentence),
        "marks_per_word": len(re.findall(r"[,;:.?!()]", passage)) / n,
        "commas_per_word": passage.count(",") / n,
        "colons_per_word": (passage.count(";") + passage.count(":")) / n,
        "syllables_per_word": syllables_per_word,
        "long_word_share": sum(len(word) > 6 for word in words) / n,
        "archaic_share": sum(w in ARCHAIC or (len(w) > 4 and w.endswith("eth")) for w in lower) / n,
        "capital_share": sum(word[0].isupper() for word in words) / n,
        "flesch": 206.835 - 1.015 * words_per_sentence - 84.6 * syllables_per_word,
    }


def features(text: pd.Series) -> pd.DataFrame:
    return pd.DataFrame([statistics(passage) for passage in text])


def make_model() -> Pipeline:
    return make_pipeline(
        StandardScaler(), SplineTransformer(n_knots=8), RidgeCV(alphas=np.logspace(-3, 2, 12))
    )


def mcrmse(true: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean(np.sqrt(np.mean((true - predicted) ** 2, axis=0))))


def main() -> None:
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    x, y = features(train["text"]), train[TARGETS].to_numpy()

    x_fit, x_val, y_fit, y_val = train_test_split(x, y, test_size=0.2, random_state=0)
    model = make_model().fit(x_fit, y_fit)
    print(f"Validation MCRMSE: {mcrmse(y_val, model.predict(x_val)):.4f}")

    model = make_model().fit(x, y)
    submission = pd.DataFrame(model.predict(features(test["text"])), columns=TARGETS)
    submission.insert(0, "id", test["id"])
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")


if __name__ == "__main__":
    main()
