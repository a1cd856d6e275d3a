"""Test nodes' labels inside a processed graph (ogbn-arxiv's): the agent gets every test
node's label -1, in the graph the starter loads and in the raw labels; the original eval.py
reads the prepared graph (issue 15).

A stand-in ogb, written here, loads the processed graph and the time split from OGB's
layout as the real one does. The task's real blanker (tasks/mlagentbench/blankers) is the
one under test."""

from __future__ import annotations

import gzip
import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from original_folders import run_command_agent, write_accuracy_task

OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"
# Two features per node, three classes; nodes 0-5 train, 6-7 valid, 8-13 test.
FEATURES = [(0.0, 0.1), (5.0, 5.1), (9.8, 0.1), (0.2, 0.0), (5.2, 4.9), (10.1, 0.2),
            (0.1, 0.2), (5.1, 5.2), (0.1, 0.0), (5.1, 5.0), (9.9, 0.0), (4.9, 5.2),
            (10.2, 0.0), (0.3, 0.1)]
LABELS = [0, 1, 2, 0, 1, 2, 0, 1, 0, 1, 2, 1, 2, 0]
SPLIT = {"train": range(6), "valid": range(6, 8), "test": range(8, 14)}
TEST_LABELS = [LABELS[node] for node in SPLIT["test"]]

OGB = '''\
import gzip, os

import torch


class PygNodePropPredDataset:
    def __init__(self, name, root="dataset"):
        self.root = os.path.join(root, "_".join(name.split("-")))
        path = os.path.join(self.root, "processed", "geometric_data_processed.pt")
        self.data, self.slices = torch.load(path, weights_only=False)

    def __getitem__(self, index):
        return self.data

    def get_idx_split(self):
        def nodes(part):
            with gzip.open(os.path.join(self.root, "split", "time", part + ".csv.gz"), "rt") as f:
                return torch.tensor([int(line) for line in f if line.strip()])
        return {part: nodes(part) for part in ("train", "valid", "test")}


class Evaluator:
    def __init__(self, name):
        self.name = name

    def eval(self, given):
        hits = given["y_true"].view(-1) == given["y_pred"].view(-1)
        return {"acc": float(hits.float().mean())}
'''

# prepare.py as OGB leaves the download: raw files, the split, the processed graph.
PREPARE = f'''\
import gzip, os
from types import SimpleNamespace

import torch

root = "../env/networks/ogbn_arxiv"
for folder in ("raw", "processed", "split/time"):
    os.makedirs(os.path.join(root, folder))


def write(rel, lines):
    with gzip.open(os.path.join(root, rel), "wt") as f:
        f.write("".join(str(line) + "\\n" for line in lines))


write("raw/node-label.csv.gz", {LABELS!r})
write("raw/node-feat.csv.gz", [f"{{a}},{{b}}" for a, b in {FEATURES!r}])
for part, nodes in {{"train": {list(SPLIT["train"])!r}, "valid": {list(SPLIT["valid"])!r},
                    "test": {list(SPLIT["test"])!r}}}.items():
    write(f"split/time/{{part}}.csv.gz", nodes)
graph = SimpleNamespace(x=torch.tensor({FEATURES!r}),
                        y=torch.tensor({LABELS!r}).view(-1, 1))
torch.save((graph, None), os.path.join(root, "processed", "geometric_data_processed.pt"))
torch.save("no pre-transform", os.path.join(root, "processed", "pre_transform.pt"))
'''

# The original's shape: predict every node, write the test nodes' predictions.
STARTER = '''\
import pandas as pd
import torch
from ogb.nodeproppred import PygNodePropPredDataset

dataset = PygNodePropPredDataset(name="ogbn-arxiv", root="networks")
data = dataset[0]
split = dataset.get_idx_split()
train = split["train"]
labels = data.y.view(-1)[train]
centres = torch.stack([data.x[train][labels == k].mean(0) for k in range(3)])
y_pred = torch.cdist(data.x, centres).argmin(1, keepdim=True)
pd.DataFrame(y_pred[split["test"]].numpy()).to_csv("submission.csv", index=False)
'''

EVAL = '''\
import os

import numpy as np
import pandas as pd
import torch
from ogb.nodeproppred import Evaluator, PygNodePropPredDataset


def get_score(submission_folder="../env"):
    submission = pd.read_csv(os.path.join(submission_folder, "submission.csv"))
    dataset = PygNodePropPredDataset(name="ogbn-arxiv", root="networks")
    test_idx = dataset.get_idx_split()["test"]
    y_true = dataset[0].y
    return Evaluator(name="ogbn-arxiv").eval({
        "y_true": y_true[test_idx], "y_pred": torch.tensor(np.array(submission))})["acc"]
'''

# The withheld files and the blanker of the real overlay, on this test's own content.
OVERLAY = "\n".join(line for line in (OVERLAYS / "ogbn-arxiv.toml").read_text().splitlines()
                    if line.startswith(("withhold_files", "blanker"))) + "\n"

# What a hostile agent tries: the test nodes' labels from the graph and from the raw file,
# then the starter, then the labels it read as its predictions.
HOSTILE = """\
import gzip, pathlib, runpy
import pandas as pd
from ogb.nodeproppred import PygNodePropPredDataset
dataset = PygNodePropPredDataset(name="ogbn-arxiv", root="networks")
test = dataset.get_idx_split()["test"]
seen = dataset[0].y.view(-1)[test].tolist()
with gzip.open("networks/ogbn_arxiv/raw/node-label.csv.gz", "rt") as f:
    raw = [int(line) for line in f.read().split()]
pathlib.Path("seen.txt").write_text(repr((seen, [raw[node] for node in test.tolist()])))
runpy.run_path("train.py")
pd.DataFrame([[max(label, 0)] for label in seen]).to_csv("submission.csv", index=False)
"""


def _write(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    overlays = pytester.path / "overlays"
    folder = write_accuracy_task(pytester.path / "benchmarks", overlays, "graph",
                                 prepare=PREPARE, evaluate=EVAL, starter=STARTER,
                                 read_only="networks/*\n", extra=OVERLAY)
    (overlays / "blankers").mkdir()
    shutil.copy(OVERLAYS / "blankers" / "ogbn_arxiv.py", overlays / "blankers")
    # The scripts import it from the workspace; prepare and eval.py from PYTHONPATH.
    library = folder / "env" / "ogb" / "nodeproppred"
    library.mkdir(parents=True)
    (library.parent / "__init__.py").write_text("")
    (library / "__init__.py").write_text(OGB)
    monkeypatch.setenv("PYTHONPATH", str(folder / "env"))


def test_the_agent_sees_no_test_node_label_and_the_starter_still_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    # Looked for, not imported: pytester drops at teardown the modules a test imported,
    # and torch imported again in the same process crashes it (a later test's import).
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed (pip install torch==2.13.0)")
    _write(pytester, monkeypatch)
    run_command_agent(pytester, HOSTILE, mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    workspace = Path(record["workspace"])
    blank = [-1] * len(TEST_LABELS)
    assert (workspace / "seen.txt").read_text() == repr((blank, blank))
    # Training nodes keep their labels: the starter's nearest centres need them.
    with gzip.open(workspace / "networks/ogbn_arxiv/raw/node-label.csv.gz", "rt") as handle:
        raw = [int(line) for line in handle.read().split()]
    assert raw[:8] == LABELS[:8]
    # Scored against the prepared labels: "class 0" for every test node is right for the
    # nodes of class 0 only (a leak would score 1, a scorer shown the blanked copy 0).
    assert record["score"] == pytest.approx(TEST_LABELS.count(0) / len(TEST_LABELS))
    assert record["baseline_mean"] == pytest.approx(1.0), record["message"]
