"""Held-out data the original prepare.py puts in the workspace, and starter files the
original eval.py reads from the submission folder (babylm does both): the agent gets the
first empty, and cannot change the second (issue 15)."""

from __future__ import annotations

import math
import shlex
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from original_folders import write_task

TRAIN_TEXT = "a b a b a a c"
TEST_TEXT = "c c c a d"

PREPARE = f"""\
import os
os.makedirs("../env/corpus", exist_ok=True)
with open("../env/corpus/train.txt", "w") as f:
    f.write({TRAIN_TEXT!r})
with open("../env/corpus/test.txt", "w") as f:
    f.write({TEST_TEXT!r})
"""

# Like babyLM_for_hf.py: the starter's reader of the corpus, relative to where it runs.
LOADER = """\
def words(split):
    with open(f"corpus/{split}.txt") as f:
        return f.read().split()
"""

# A unigram model with add-one smoothing over the words it saw and one unknown.
TRAIN = """\
import json
import os

import loader

counts = {}
for word in loader.words("train"):
    counts[word] = counts.get(word, 0) + 1
os.makedirs("output", exist_ok=True)
with open("output/model.json", "w") as f:
    json.dump(counts, f)
"""

# Like babylm's: the reader comes from the submission folder, the text from where it runs.
EVAL = """\
import importlib.util
import json
import math
import os


def get_score(submission_folder="../env"):
    spec = importlib.util.spec_from_file_location(
        "loader", os.path.join(submission_folder, "loader.py"))
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    with open(os.path.join(submission_folder, "output", "model.json")) as f:
        counts = json.load(f)
    total, kinds = sum(counts.values()), len(counts) + 1
    words = loader.words("test")
    nll = -sum(math.log((counts.get(w, 0) + 1) / (total + kinds)) for w in words)
    return math.exp(nll / len(words))
"""

OVERLAY = """\
withhold_files = ["corpus/test*"]
starter_for_eval = ["loader.py"]
"""

# What a hostile agent tries: read the held-out text, train as the starter does, then make
# the reader the scorer would use return the word the model has seen most.
HOSTILE = """\
import pathlib, runpy
pathlib.Path("held.txt").write_text(repr(pathlib.Path("corpus/test.txt").read_text()))
runpy.run_path("train.py")
pathlib.Path("loader.py").write_text("def words(split):\\n    return ['a'] * 50\\n")
"""


def _perplexity(train: str, test: str) -> float:
    counts = Counter(train.split())
    total, kinds = sum(counts.values()), len(counts) + 1
    words = test.split()
    return math.exp(-sum(math.log((counts[w] + 1) / (total + kinds)) for w in words)
                    / len(words))


def _write(pytester: pytest.Pytester, extra: str = OVERLAY) -> Path:
    folder = write_task(pytester.path / "benchmarks", pytester.path / "overlays", "corpus",
                        extra=extra)
    (folder / "scripts" / "prepare.py").write_text(PREPARE)
    (folder / "scripts" / "eval.py").write_text(EVAL)
    (folder / "scripts" / "read_only_files.txt").write_text("corpus/*\n")
    (folder / "env" / "loader.py").write_text(LOADER)
    (folder / "env" / "train.py").write_text(TRAIN)
    overlay = pytester.path / "overlays" / "corpus.toml"
    overlay.write_text(overlay.read_text().replace(
        'name = "mae"', 'name = "perplexity"').replace(
        'submission = ["submission.csv"]', 'submission = ["output/**"]'))
    return folder


def test_the_agent_gets_the_held_out_text_empty_and_the_scorer_its_own_reader(
    pytester: pytest.Pytester, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    _write(pytester)
    command = f"python3 -c {shlex.quote(HOSTILE)}"
    pytester.runpytest(str(pytester.path / "benchmarks"), "--agent=command",
                       f"--mlab-agent-cmd={command}", "--mlab-keep-workspaces=all",
                       f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args
                       ).assert_outcomes(failed=1)
    (record,) = read_results()
    # The model the starter trains on the training text, scored on the held-out text by
    # the original reader: neither the edited reader ('a' only) nor an empty test counted.
    expected = _perplexity(TRAIN_TEXT, TEST_TEXT)
    assert record["score"] == pytest.approx(expected), record["message"]
    assert record["baseline_mean"] == pytest.approx(expected)
    workspace = Path(record["workspace"])
    assert (workspace / "held.txt").read_text() == "''"
    assert (workspace / "corpus" / "train.txt").read_text() == TRAIN_TEXT


def test_a_pattern_that_holds_back_nothing_is_an_error_not_a_leak(
    pytester: pytest.Pytester, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    _write(pytester, extra=OVERLAY.replace("corpus/test*", "corpus/heldout*"))
    pytester.runpytest(str(pytester.path / "benchmarks"),
                       f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args
                       ).assert_outcomes(errors=1)
    (record,) = read_results()
    assert ("withhold_files 'corpus/heldout*' names none of the data the original "
            "prepare.py wrote") in record["message"]


def test_a_starter_file_for_eval_must_exist(
    pytester: pytest.Pytester, mlab_args: list[str]
) -> None:
    _write(pytester, extra=OVERLAY.replace('"loader.py"', '"reader.py"'))
    result = pytester.runpytest(str(pytester.path / "benchmarks"), "--collect-only",
                                f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args)
    result.stdout.fnmatch_lines(["*corpus.toml: key 'starter_for_eval': env/reader.py does "
                                 "not exist in *"])
