"""Split the King James Bible into public training text and private held-out chapters.

The text comes from the Debian package bible-kjv, whose `bible` program prints every
verse from its compressed data file, so preparing needs no network.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from pytest_mlab import TaskUnavailable
from pytest_mlab.taskkit.secret import secret_rng

TEST_FRACTION = 0.08
VALID_FRACTION = 0.05
# `bible -f` prints one verse a line, prefixed by its reference, e.g. "1Sm3:10 And ...".
VERSE = re.compile(r"^(\d?[A-Za-z]+)(\d+):(\d+) (.+)$")
EXPECTED_VERSES = 31102
# Every character a model may be asked to predict: newline and printable ASCII.
VOCAB = "\n" + "".join(chr(code) for code in range(32, 127))


def _verses() -> list[tuple[str, str]]:
    """(chapter key, verse text) for every verse in canonical order."""
    program = shutil.which("bible")
    if program is None:
        raise TaskUnavailable(
            "The King James Bible (the `bible` program) is missing: "
            "apt-get install bible-kjv bible-kjv-text"
        )
    run = subprocess.run(
        [program, "-f", "Gen1:1-Rev22:21"], capture_output=True, text=True, timeout=120
    )
    lines = run.stdout.splitlines()
    if run.returncode != 0 or len(lines) != EXPECTED_VERSES:
        raise TaskUnavailable(
            f"`bible` printed {len(lines)} verses, not {EXPECTED_VERSES} "
            f"({run.stderr.strip()[:200]}): apt-get install --reinstall bible-kjv bible-kjv-text"
        )
    verses = []
    for line in lines:
        match = VERSE.match(line)
        if match is None:
            raise ValueError(f"unexpected line from `bible`: {line[:80]!r}")
        book, chapter, _, text = match.groups()
        text = " ".join(text.split())
        if any(char not in VOCAB for char in text):
            raise ValueError(f"a verse has a character outside the vocabulary: {text[:80]!r}")
        verses.append((f"{book} {chapter}", text))
    return verses


def prepare(public: Path, private: Path) -> None:
    verses = _verses()
    chapters = list(dict.fromkeys(key for key, _ in verses))
    draw = secret_rng("tiny-lm").random(len(chapters))
    split = {
        key: "test" if u < TEST_FRACTION else "valid" if u < TEST_FRACTION + VALID_FRACTION
        else "train"
        for key, u in zip(chapters, draw, strict=True)
    }
    parts: dict[str, list[str]] = {"train": [], "valid": [], "test": []}
    for key, text in verses:
        parts[split[key]].append(text)

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    for name, folder in (("train", public), ("valid", public), ("test", private)):
        (folder / f"{name}.txt").write_text("\n".join(parts[name]) + "\n", encoding="ascii")
