"""The shortcut of the issue: no learning, only the rules data_description.txt publishes,
applied to each passage's visible text and put on the normal-score scale over all
passages (train and test), as the targets were."""

import re
from statistics import NormalDist

import pandas as pd

TARGETS = ["word_length", "vocabulary", "sentence_length", "punctuation", "readability",
           "archaism"]
WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
ARCHAIC = {"thee", "thou", "thy", "thine", "ye", "hath", "doth", "hast", "dost", "art",
           "shalt", "wilt", "saith", "unto", "spake", "whence", "thence", "hither",
           "thither", "whither", "wherefore", "behold"}


def syllables(word: str) -> int:
    groups = len(re.findall(r"[aeiouy]+", word))
    return max(groups - (word.endswith("e") and not word.endswith("le") and groups > 1), 1)


def measure(text: str) -> list[float]:
    words = [word.lower() for word in WORD.findall(text)]
    n = len(words)
    per_sentence = n / max(len(re.findall(r"[.?!]+", text)), 1)
    return [
        sum(len(word.replace("'", "")) for word in words) / n,
        len(set(words)) / n,
        per_sentence,
        len(re.findall(r"[,;:.?!()]", text)) / n,
        206.835 - 1.015 * per_sentence - 84.6 * sum(map(syllables, words)) / n,
        sum(w in ARCHAIC or (len(w) > 4 and w.endswith("eth")) for w in words) / n,
    ]


train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
texts = pd.concat([train["text"], test["text"]], ignore_index=True)
raw = pd.DataFrame([measure(text) for text in texts], columns=TARGETS)
scores = ((raw.rank() - 0.5) / len(raw)).map(NormalDist().inv_cdf)
submission = scores.iloc[len(train):].reset_index(drop=True)
submission.insert(0, "id", test["id"])
submission.to_csv("submission.csv", index=False)
