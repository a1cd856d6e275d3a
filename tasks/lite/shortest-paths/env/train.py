"""Learn all-pairs shortest-path predecessors from small graphs and predict them on larger ones.

A simple starting point: a message-passing network over (source, node) pairs. Each
source marks itself, three rounds of summed messages along the roads spread that
information, and a pointer head scores every node as the predecessor of every other.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

HIDDEN = 32
ROUNDS = 3
EPOCHS = 4
BATCH_SIZE = 32


def load(path: str) -> dict[str, torch.Tensor]:
    with np.load(path) as data:
        return {key: torch.tensor(data[key]) for key in data.files}


class PairMPNN(nn.Module):
    """Hidden state per (source s, node v); logits[b, s, j, k]: k precedes j on a path from s."""

    def __init__(self, n_features: int) -> None:
        super().__init__()
        self.edge = nn.Linear(n_features + 1, HIDDEN)
        self.source = nn.Linear(1, HIDDEN)
        self.message = nn.Linear(HIDDEN, HIDDEN)
        self.update = nn.Linear(2 * HIDDEN, HIDDEN)
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.edge_score = nn.Linear(n_features + 1, 1)

    def forward(self, adjacency: torch.Tensor, edge_features: torch.Tensor) -> torch.Tensor:
        batch, n, _ = adjacency.shape
        roads = adjacency.float()
        edges = torch.cat([edge_features, roads.unsqueeze(-1)], dim=-1)  # (b, u, v, f)
        edge_hidden = self.edge(edges)
        is_source = torch.eye(n).expand(batch, n, n).unsqueeze(-1)
        h = torch.relu(self.source(is_source))  # (b, s, v, hidden)
        for _ in range(ROUNDS):
            # Sum over the roads u -> v of the neighbour's state and the road's features.
            incoming = torch.einsum("buv,bsuh->bsvh", roads, self.message(h))
            incoming = incoming + (edge_hidden * roads.unsqueeze(-1)).sum(dim=1).unsqueeze(1)
            h = torch.relu(self.update(torch.cat([h, incoming], dim=-1)))
        logits = torch.einsum("bsjh,bskh->bsjk", self.query(h), self.key(h)) / HIDDEN**0.5
        # The features of the road k -> j, for each (j, k).
        return logits + self.edge_score(edges).squeeze(-1).transpose(1, 2).unsqueeze(1)


def node_mask(n_nodes: torch.Tensor, size: int) -> torch.Tensor:
    """(graphs, size) bool: which padded positions are real nodes."""
    return torch.arange(size)[None, :] < n_nodes[:, None]


def predict(model: nn.Module, data: dict[str, torch.Tensor]) -> torch.Tensor:
    """Predecessor matrices (graphs, size, size), -1 on padding."""
    model.eval()
    size = data["adjacency"].shape[1]
    predictions = []
    with torch.no_grad():
        for batch in torch.arange(len(data["n_nodes"])).split(BATCH_SIZE):
            nodes = node_mask(data["n_nodes"][batch], size)
            logits = model(data["adjacency"][batch], data["edge_features"][batch])
            logits = logits.masked_fill(~nodes[:, None, None, :], float("-inf"))
            pairs = nodes[:, :, None] & nodes[:, None, :]
            predictions.append(torch.where(pairs, logits.argmax(dim=-1), -1))
    return torch.cat(predictions)


def accuracy(predicted: torch.Tensor, data: dict[str, torch.Tensor]) -> float:
    """Share of correct predecessors over pairs (i, j) of distinct nodes."""
    size = predicted.shape[1]
    nodes = node_mask(data["n_nodes"], size)
    pairs = nodes[:, :, None] & nodes[:, None, :] & ~torch.eye(size, dtype=torch.bool)
    return float((predicted[pairs] == data["predecessors"][pairs]).float().mean())


def main() -> None:
    # One thread and fixed seeds make a run repeatable.
    torch.set_num_threads(1)
    torch.manual_seed(0)

    graphs = load("train.npz")
    test = load("test.npz")
    # Hold out the last 100 training graphs to report a validation accuracy.
    train = {key: value[:-100] for key, value in graphs.items()}
    valid = {key: value[-100:] for key, value in graphs.items()}

    model = PairMPNN(graphs["edge_features"].shape[-1])
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    size = graphs["adjacency"].shape[1]
    for epoch in range(EPOCHS):
        model.train()
        total = 0.0
        for batch in torch.randperm(len(train["n_nodes"])).split(BATCH_SIZE):
            nodes = node_mask(train["n_nodes"][batch], size)
            logits = model(train["adjacency"][batch], train["edge_features"][batch])
            logits = logits.masked_fill(~nodes[:, None, None, :], float("-inf"))
            pairs = nodes[:, :, None] & nodes[:, None, :]
            loss = nn.functional.cross_entropy(logits[pairs], train["predecessors"][batch][pairs])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        valid_accuracy = accuracy(predict(model, valid), valid)
        print(
            f"epoch {epoch + 1}: loss {total / len(train['n_nodes']):.3f}, "
            f"valid accuracy {valid_accuracy:.4f}"
        )

    np.save("predictions.npy", predict(model, test).numpy())
    print(f"Wrote predictions.npy for {len(test['n_nodes'])} test graphs")


if __name__ == "__main__":
    main()
