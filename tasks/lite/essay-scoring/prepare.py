"""Cut the King James Bible into short passages and measure six properties of each.

The text comes from the Debian package bible-kjv through its ``bible`` program, so
preparing needs no network. The targets are computed here from each passage's own text
with fixed rules, then standardised; the rules are described in env/data_description.txt.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd

from pytest_mlab import TaskUnavailable
from pytest_mlab.taskkit.splits import write_csv_split

SEED = 1611
N_TRAIN, N_TEST = 3000, 1000
MIN_VERSES, MAX_VERSES = 2, 7
TARGETS = [
    "word_length",
    "vocabulary",
    "sentence_length",
    "punctuation",
    "readability",
    "archaism",
]

VERSE = re.compile(r"^([1-3]?[A-Za-z]+)(\d+):(\d+) (.*)$")
WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
VOWEL_GROUP = re.compile(r"[aeiouy]+")
SENTENCE_END = re.compile(r"[.?!]+")
PUNCTUATION = re.compile(r"[,;:.?!()]")
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
        "wast",
        "saith",
        "unto",
        "spake",
        "sware",
        "whence",
        "thence",
        "hither",
        "thither",
        "whither",
        "wherefore",
        "lo",
        "behold",
    }
)


def prepare(public: Path, private: Path) -> None:
    passages = _passages(_verses())
    order = np.random.default_rng(SEED).permutation(len(passages))[: N_TRAIN + N_TEST]
    text = pd.Series([passages[i] for i in order])
    targets = pd.DataFrame([_measure(passage) for passage in text], columns=TARGETS)
    # Normal scores: the ranks over all chosen passages mapped to standard normal
    # quantiles, so every target is on one scale and a few odd passages (lists of
    # names, one long sentence) do not dominate the error.
    quantiles = (targets.rank() - 0.5) / len(targets)
    targets = quantiles.map(NormalDist().inv_cdf).round(4)

    data = pd.concat(
        [pd.Series(np.arange(1, len(text) + 1), name="id"), text.rename("text"), targets], axis=1
    )
    write_csv_split(public, private, data.iloc[:N_TRAIN], data.iloc[N_TRAIN:], "id", TARGETS)


def _verses() -> list[tuple[str, str]]:
    """Every verse as (book and chapter, text), in canonical order."""
    program = shutil.which("bible")
    if program is None:
        raise TaskUnavailable(
            "the bible program of bible-kjv is missing: apt-get install bible-kjv"
        )
    # -f switches pretty-printing off: one verse a line, led by its reference.
    listing = subprocess.run(
        [program, "-f", "Gen1:1-Rev22:21"], capture_output=True, text=True, check=True
    ).stdout
    verses = []
    for line in listing.splitlines():
        match = VERSE.match(line)
        if match:
            book, chapter, _, words = match.groups()
            verses.append((f"{book}{chapter}", words.strip()))
    if len(verses) < 31000:
        raise TaskUnavailable(
            f"bible printed only {len(verses)} verses: apt-get install --reinstall bible-kjv"
        )
    return verses


def _passages(verses: list[tuple[str, str]]) -> list[str]:
    """Runs of 2-7 consecutive verses within one chapter; a last lone verse is left out."""
    rng = np.random.default_rng(SEED)
    chapters: dict[str, list[str]] = {}
    for chapter, words in verses:
        chapters.setdefault(chapter, []).append(words)
    passages = []
    for texts in chapters.values():
        start = 0
        while len(texts) - start >= MIN_VERSES:
            size = int(rng.integers(MIN_VERSES, MAX_VERSES + 1))
            passages.append(" ".join(texts[start : start + size]))
            start += size
    return passages


def _syllables(word: str) -> int:
    groups = len(VOWEL_GROUP.findall(word))
    # A final silent e ("made", "there") adds no syllable; the e of "-le" ("table") does.
    if word.endswith("e") and not word.endswith("le") and groups > 1:
        groups -= 1
    return max(groups, 1)


def _measure(passage: str) -> list[float]:
    words = [word.lower() for word in WORD.findall(passage)]
    n_words = len(words)
    n_sentences = max(len(SENTENCE_END.findall(passage)), 1)
    letters = sum(sum(ch.isalpha() for ch in word) for word in words)
    syllables = sum(_syllables(word) for word in words)
    archaic = sum(word in ARCHAIC or (len(word) > 4 and word.endswith("eth")) for word in words)
    words_per_sentence = n_words / n_sentences
    return [
        letters / n_words,
        len(set(words)) / n_words,
        words_per_sentence,
        len(PUNCTUATION.findall(passage)) / n_words,
        206.835 - 1.015 * words_per_sentence - 84.6 * syllables / n_words,
        archaic / n_words,
    ]
