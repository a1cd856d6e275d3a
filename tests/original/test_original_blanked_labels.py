"""Test labels inside a file a library checks by its md5 (cifar10's test batch): the agent
gets the batch with every label -1, and a startup module of the task's lets the library
load it in the trial's scripts; the original eval.py reads the prepared batch (issue 15).

A stand-in torchvision, written here, checks the batches' md5s as the real one does. The
task's real blanker and startup module (tasks/mlagentbench/blankers, startup) are the
ones under test."""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from original_folders import run_command_agent, write_accuracy_task

from pytest_mlab.core.original_shims import write_startup

OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"
TRAIN = {"data": [(0.0, 0.1), (0.2, 0.0), (5.0, 5.1), (5.2, 4.9), (9.8, 0.1), (10.1, 0.2)],
         "labels": [0, 0, 1, 1, 2, 2], "batch_label": "training batch 1 of 1"}
TEST_LABELS = [0, 1, 2, 0, 1, 2, 1, 2, 2, 0]
TEST = {"data": [(0.1, 0.0), (5.1, 5.0), (9.9, 0.0), (0.3, 0.2), (4.9, 5.2), (10.0, 0.3),
                 (5.0, 4.8), (10.2, 0.0), (9.7, 0.1), (0.0, 0.2)],
        "labels": TEST_LABELS, "batch_label": "testing batch 1 of 1"}


def _batch(content: dict[str, Any]) -> bytes:
    return pickle.dumps(content, protocol=2)


# As torchvision's own: every batch checked against the original's md5 before loading.
CIFAR = f'''\
import hashlib, os, pickle


def check_integrity(fpath, md5=None):
    if not os.path.isfile(fpath):
        return False
    if md5 is None:
        return True
    with open(fpath, "rb") as f:
        return hashlib.md5(f.read()).hexdigest() == md5


class CIFAR10:
    base_folder = "cifar-10-batches-py"
    train_list = [["data_batch_1", {hashlib.md5(_batch(TRAIN)).hexdigest()!r}]]
    test_list = [["test_batch", {hashlib.md5(_batch(TEST)).hexdigest()!r}]]
    meta = {{"filename": "batches.meta", "key": "label_names", "md5": None}}

    def __init__(self, root, train=True, download=False):
        self.root = root
        if download and not self._check_integrity():
            raise RuntimeError("CIFAR-10 would be downloaded again, and there is no network")
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted.")
        self.data, self.targets = [], []
        for name, _ in self.train_list if train else self.test_list:
            with open(os.path.join(root, self.base_folder, name), "rb") as f:
                entry = pickle.load(f, encoding="latin1")
            self.data += entry["data"]
            self.targets += entry["labels"]

    def _check_integrity(self):
        return all(check_integrity(os.path.join(self.root, self.base_folder, name), md5)
                   for name, md5 in self.train_list + self.test_list)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return self.data[index], self.targets[index]
'''

# prepare.py as the original's: the batches and the archive they came in, into ../env/data.
PREPARE = f'''\
import io, os, tarfile

folder = "../env/data/cifar-10-batches-py"
os.makedirs(folder)
batches = {{"data_batch_1": {_batch(TRAIN)!r}, "test_batch": {_batch(TEST)!r}}}
for name, content in batches.items():
    with open(os.path.join(folder, name), "wb") as f:
        f.write(content)
with tarfile.open("../env/data/cifar-10-python.tar.gz", "w:gz") as tar:
    tar.add(folder, arcname="cifar-10-batches-py")
'''

# The original's shapes: one column of probabilities per class, a row per test image.
STARTER = '''\
import pandas as pd
from torchvision import datasets

train = datasets.CIFAR10(root="./data", train=True, download=True)
test = datasets.CIFAR10(root="./data", train=False, download=True)
centres = {}
for x, y in train:
    centres.setdefault(y, []).append(x)
centres = {y: [sum(v) / len(v) for v in zip(*xs)] for y, xs in centres.items()}


def nearest(x):
    return min(centres, key=lambda y: sum((a - b) ** 2 for a, b in zip(x, centres[y])))


rows = [[1.0 if nearest(x) == k else 0.0 for k in range(3)] for x, _ in test]
pd.DataFrame(rows, columns=range(3)).to_csv("submission.csv")
'''

EVAL = '''\
import os

import pandas as pd
from torchvision import datasets


def get_score(submission_folder="../env"):
    submission = pd.read_csv(os.path.join(submission_folder, "submission.csv"), index_col=0)
    test = datasets.CIFAR10(root="./data", train=False, download=True)
    hits = sum(int(submission.loc[i].argmax() == y) for i, (x, y) in enumerate(test))
    return hits / len(test)
'''

OVERLAY = """\
withhold_files = ["data/cifar-10-batches-py/test_batch", "data/cifar-10-python.tar.gz"]
blanker = "cifar10.py"
python_startup = "cifar10.py"
"""

# What a hostile agent tries: read the test labels from the batch and from the archive,
# then run the starter, and predict for each image the label it read.
HOSTILE = """\
import pathlib, pickle, runpy
with open("data/cifar-10-batches-py/test_batch", "rb") as f:
    labels = pickle.load(f, encoding="latin1")["labels"]
pathlib.Path("seen.txt").write_text(repr(labels))
pathlib.Path("archive.txt").write_text(
    str(pathlib.Path("data/cifar-10-python.tar.gz").stat().st_size))
runpy.run_path("train.py")
import pandas as pd
rows = [[1.0 if label == k or (label < 0 and k == 0) else 0.0 for k in range(3)]
        for label in labels]
pd.DataFrame(rows, columns=range(3)).to_csv("submission.csv")
"""


def _write(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
           overlay: str = OVERLAY) -> None:
    overlays = pytester.path / "overlays"
    folder = write_accuracy_task(pytester.path / "benchmarks", overlays, "pictures",
                                 prepare=PREPARE, evaluate=EVAL, starter=STARTER,
                                 read_only="data/*\n", extra=overlay)
    for kind in ("blankers", "startup"):
        (overlays / kind).mkdir()
        shutil.copy(OVERLAYS / kind / "cifar10.py", overlays / kind / "cifar10.py")
    # The scripts import it from the workspace, eval.py (in the scorer) from PYTHONPATH.
    library = folder / "env" / "torchvision"
    (library / "datasets").mkdir(parents=True)
    (library / "__init__.py").write_text("")
    (library / "datasets" / "__init__.py").write_text("from .cifar import CIFAR10\n")
    (library / "datasets" / "cifar.py").write_text(CIFAR)
    monkeypatch.setenv("PYTHONPATH", str(folder / "env"))


def test_the_agent_sees_no_test_label_and_the_starter_still_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    _write(pytester, monkeypatch)
    run_command_agent(pytester, HOSTILE, mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    workspace = Path(record["workspace"])
    assert (workspace / "seen.txt").read_text() == repr([-1] * len(TEST_LABELS))
    assert (workspace / "archive.txt").read_text() == "0"
    # Scored against the prepared labels: "class 0" for every image is right for the
    # images of class 0 only (a leak would score 1, a scorer shown the blanked copy 0).
    assert record["score"] == pytest.approx(TEST_LABELS.count(0) / len(TEST_LABELS))
    # The starter loaded the blanked batch (the stand-in checks md5s) and its nearest
    # centres classify every test image.
    assert record["baseline_mean"] == pytest.approx(1.0), record["message"]


def test_without_the_startup_module_the_library_refuses_the_blanked_batch(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    _write(pytester, monkeypatch, overlay=OVERLAY.replace('python_startup = "cifar10.py"\n',
                                                          ""))
    pytester.runpytest(str(pytester.path / "benchmarks"),
                       f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args
                       ).assert_outcomes(errors=1)
    (record,) = read_results()
    # The starter stopped at the library's check, so it wrote no submission.csv.
    assert "the unmodified starter has no valid score" in record["message"]
    assert "submission.csv" in record["message"]


def test_the_startup_module_and_the_blanker_must_exist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mlab_args: list[str],
) -> None:
    _write(pytester, monkeypatch, overlay=OVERLAY.replace('blanker = "cifar10.py"',
                                                          'blanker = "cifar100.py"'))
    result = pytester.runpytest(str(pytester.path / "benchmarks"), "--collect-only",
                                f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args)
    result.stdout.fnmatch_lines(["*pictures.toml: key 'blanker': blankers/cifar100.py does "
                                 "not exist*"])


def test_the_startup_folder_runs_the_module_then_the_sitecustomize_it_hides(
    tmp_path: Path,
) -> None:
    module = tmp_path / "task_startup.py"
    module.write_text("import os\nos.environ['MLAB_ORDER'] = 'task'\n")
    hidden = tmp_path / "site"
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text("import os\nos.environ['MLAB_ORDER'] += ',site'\n")
    folder = write_startup(module, tmp_path / "shims")
    run = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ['MLAB_ORDER'])"],
        env=os.environ | {"PYTHONPATH": os.pathsep.join([str(folder), str(hidden)])},
        capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "task,site"
