"""Loading the citation graph and writing submission.csv, shared by the scripts here."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch


@dataclass
class Graph:
    features: torch.Tensor  # one row per paper
    edges: pd.DataFrame  # source cites target
    y: torch.Tensor  # each paper's area; test papers keep -1: theirs are hidden
    n_classes: int
    split: dict[str, torch.Tensor]  # "train", "valid", "test" -> node ids


def seed_torch() -> None:
    """One thread, and the seed the harness sets in MLAB_SEED (repeated runs show the spread)."""
    torch.set_num_threads(1)
    torch.manual_seed(int(os.environ.get("MLAB_SEED", "0")))


def load_graph() -> Graph:
    nodes = pd.read_csv("nodes.csv")
    labels = pd.read_csv("labels.csv")
    y = torch.full((len(nodes),), -1)
    y[torch.tensor(labels["node_id"].to_numpy())] = torch.tensor(labels["label"].to_numpy())
    split = {
        name: torch.tensor(group["node_id"].to_numpy()) for name, group in nodes.groupby("split")
    }
    return Graph(
        features=torch.tensor(np.load("features.npy")),
        edges=pd.read_csv("edges.csv"),
        y=y,
        n_classes=int(labels["label"].max()) + 1,
        split=split,
    )


def write_submission(test_ids: torch.Tensor, predicted: torch.Tensor) -> None:
    submission = pd.DataFrame({"node_id": test_ids.numpy(), "label": predicted.numpy()})
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")
