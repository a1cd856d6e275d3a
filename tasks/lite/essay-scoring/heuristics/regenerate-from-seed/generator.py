"""Write short "essays" from latent writing traits and score them as raters would.

The original task (Feedback Prize - English Language Learning) scores student essays on
six analytic measures, 1.0 to 5.0 in half points. No such essays are installed here, so
each essay is written by a seeded generator from six latent traits, drawn correlated as
real writers' skills are. Words come from the King James Bible's vocabulary (the Debian
package bible-kjv, read through its ``bible`` program): common words by their frequency,
rarer words, and the Bible's most frequent three-word phrases. Each trait sets the
rates of several weak signals in the text, and most signals answer to more than one
trait: sentence lengths and commas (syntax), reuse of the essay's own rarer words and
linking words (cohesion), rare words (vocabulary), stock phrases (phraseology), doubled
and swapped words (grammar), letter swaps, missing capitals and full stops
(conventions). The scores are the traits plus rater noise, rounded to half points, so no
formula of the text recovers them: a model has to learn how the signals combine.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pytest_mlab import TaskUnavailable
from pytest_mlab.taskkit.splits import write_csv_split

SEED = 2022
N_TRAIN, N_TEST = 3000, 1000
TARGETS = ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]
COH, SYN, VOC, PHR, GRA, CON = range(6)
TRAIT_CORRELATION = 0.55
TRAIT_SD = 0.7
RATER_SD = 0.3
N_COMMON, RARE_FROM, RARE_TO, N_PHRASES = 300, 1500, 6000, 400
CONNECTIVES = ["and", "but", "for", "therefore", "then", "so", "moreover", "yet", "also"]
WORD = re.compile(r"[a-z]+")


def prepare(public: Path, private: Path) -> None:
    lexicon = _lexicon(_kjv())
    rng = np.random.default_rng(SEED)
    n = N_TRAIN + N_TEST
    correlation = np.full((6, 6), TRAIT_CORRELATION) + (1 - TRAIT_CORRELATION) * np.eye(6)
    # Through the Cholesky factor, which is unique: multivariate_normal factors by SVD, and
    # with five equal eigenvalues LAPACK may pick any basis of their eigenspace, so the
    # same seed drew other traits on another CPU (starter scores 1.2% apart, 16 sd).
    traits = rng.standard_normal((n, 6)) @ np.linalg.cholesky(correlation).T
    text = [_essay(rng, z, lexicon) for z in traits]
    rated = 3 + TRAIT_SD * traits + RATER_SD * rng.normal(size=traits.shape)
    scores = np.clip(np.round(rated * 2) / 2, 1.0, 5.0)
    data = pd.DataFrame(scores, columns=TARGETS)
    data.insert(0, "text", text)
    data.insert(0, "id", np.arange(1, n + 1))
    write_csv_split(public, private, data.iloc[:N_TRAIN], data.iloc[N_TRAIN:], "id", TARGETS)


def _kjv() -> str:
    program = shutil.which("bible")
    if program is None:
        raise TaskUnavailable(
            "the bible program of bible-kjv is missing: apt-get install bible-kjv"
        )
    # -f switches pretty-printing off: one verse a line, led by its reference.
    listing = subprocess.run([program, "-f", "Gen1:1-Rev22:21"], capture_output=True, text=True,
                             check=True).stdout
    if len(listing) < 4_000_000:
        raise TaskUnavailable(
            "bible printed too little text: apt-get install --reinstall bible-kjv"
        )
    return listing


def _lexicon(listing: str) -> dict[str, Any]:
    """Common words with their cumulative frequencies, rarer words, stock phrases."""
    verses = [line.split(" ", 1)[1].lower() for line in listing.splitlines() if " " in line]
    tokens = [WORD.findall(v) for v in verses]
    counts = Counter(w for ws in tokens for w in ws)
    ranked = [w for w, _ in counts.most_common()]
    trigrams = Counter(tuple(ws[i:i + 3]) for ws in tokens for i in range(len(ws) - 2))
    common = ranked[:N_COMMON]
    weights = np.array([counts[w] for w in common], dtype=float)
    return {"common": common, "cumulative": np.cumsum(weights) / weights.sum(),
            "rare": [w for w in ranked[RARE_FROM:RARE_TO] if len(w) > 3],
            "phrases": [list(t) for t, _ in trigrams.most_common(N_PHRASES)]}


def _chance(rng: np.random.Generator, logit: float) -> bool:
    return bool(rng.random() < 1 / (1 + np.exp(-logit)))


def _sentence(
    rng: np.random.Generator, z: np.ndarray, lexicon: dict[str, Any], used: list[str]
) -> list[str]:
    """One sentence's words; a rarer word drawn here may be reused later (cohesion)."""
    length = max(3, int(rng.poisson(max(9 + 3.0 * z[SYN] + 1.0 * z[COH], 4))))
    words: list[str] = []
    if _chance(rng, -0.5 + 0.6 * z[COH] + 0.3 * z[SYN]):
        words.append(CONNECTIVES[rng.integers(len(CONNECTIVES))])
    while len(words) < length:
        if _chance(rng, -2.2 + 1.0 * z[PHR] + 0.2 * z[VOC]):
            words.extend(lexicon["phrases"][rng.integers(len(lexicon["phrases"]))])
        elif used and _chance(rng, -1.8 + 1.0 * z[COH]):
            words.append(used[rng.integers(len(used))])
        elif _chance(rng, -2.0 + 1.0 * z[VOC] + 0.2 * z[PHR]):
            word = lexicon["rare"][rng.integers(len(lexicon["rare"]))]
            used.append(word)
            words.append(word)
        else:
            at = int(np.searchsorted(lexicon["cumulative"], rng.random()))
            words.append(lexicon["common"][min(at, N_COMMON - 1)])
    return words


def _garble(rng: np.random.Generator, z: np.ndarray, words: list[str]) -> str:
    out: list[str] = []
    for word in words:
        if len(word) > 3 and _chance(rng, -3.6 - 1.0 * z[CON] - 0.3 * z[VOC]):
            i = int(rng.integers(len(word) - 1))
            word = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        out.append(word)
        if _chance(rng, -3.8 - 1.0 * z[GRA] - 0.3 * z[CON]):
            out.append(word)
        if len(out) > 2 and _chance(rng, -3.8 - 1.0 * z[GRA] - 0.3 * z[SYN]):
            out[-1], out[-2] = out[-2], out[-1]
        if _chance(rng, -3.0 + 0.5 * z[SYN] + 0.3 * z[CON]):
            out[-1] += ","
    out[-1] = out[-1].rstrip(",")
    if not _chance(rng, -1.5 - 1.0 * z[CON]):
        out[0] = out[0].capitalize()
    if not _chance(rng, -2.0 - 0.9 * z[CON] - 0.3 * z[GRA]):
        out[-1] += "."
    return " ".join(out)


def _essay(rng: np.random.Generator, z: np.ndarray, lexicon: dict[str, Any]) -> str:
    n_sentences = max(3, round(rng.normal(10 + 1.0 * z.mean(), 3.0)))
    used: list[str] = []
    return " ".join(_garble(rng, z, _sentence(rng, z, lexicon, used)) for _ in range(n_sentences))
