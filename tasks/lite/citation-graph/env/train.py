"""Classify papers of a citation graph into subject areas and write submission.csv.

A simple starting point: a two-layer perceptron on each paper's own features,
trained for ten epochs. It does not use the citations.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import torch
from torch import nn

EPOCHS = 10
BATCH_SIZE = 256
HIDDEN = 128


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    model.eval()
    with torch.no_grad():
        return float((model(x).argmax(dim=1) == y).float().mean())


def main() -> None:
    # The harness sets MLAB_SEED, so that repeated runs show the spread of the result.
    torch.set_num_threads(1)
    torch.manual_seed(int(os.environ.get("MLAB_SEED", "0")))

    features = torch.tensor(np.load("features.npy"))
    nodes = pd.read_csv("nodes.csv")
    labels = pd.read_csv("labels.csv")
    # edges.csv (source cites target) is not used by this model.

    n_classes = int(labels["label"].max()) + 1
    # Test papers keep the label -1: theirs are hidden.
    y = torch.full((len(nodes),), -1)
    y[torch.tensor(labels["node_id"].to_numpy())] = torch.tensor(labels["label"].to_numpy())
    split = {
        name: torch.tensor(group["node_id"].to_numpy()) for name, group in nodes.groupby("split")
    }
    x_train = features[split["train"]]
    y_train = y[split["train"]]
    x_valid = features[split["valid"]]
    y_valid = y[split["valid"]]

    model = nn.Sequential(
        nn.Linear(features.shape[1], HIDDEN),
        nn.ReLU(),
        nn.Dropout(0.5),
        nn.Linear(HIDDEN, n_classes),
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for epoch in range(EPOCHS):
        model.train()
        for batch in torch.randperm(len(y_train)).split(BATCH_SIZE):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x_train[batch]), y_train[batch])
            loss.backward()
            optimizer.step()
        print(
            f"epoch {epoch + 1}: loss {loss.item():.3f}, "
            f"valid accuracy {accuracy(model, x_valid, y_valid):.4f}"
        )

    model.eval()
    with torch.no_grad():
        predicted = model(features[split["test"]]).argmax(dim=1)
    submission = pd.DataFrame({"node_id": split["test"].numpy(), "label": predicted.numpy()})
    submission.to_csv("submission.csv", index=False)
    print(f"Wrote submission.csv with {len(submission)} rows")


if __name__ == "__main__":
    main()
