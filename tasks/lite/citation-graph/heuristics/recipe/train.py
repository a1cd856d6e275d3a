"""The ladder's recipe rung: the textbook recipe for a citation graph, Kipf and Welling's
two-layer graph convolutional network (undirected citations with self-loops, symmetric
normalisation, 16 hidden units, dropout 0.5, Adam at 0.01 with weight decay 5e-4, 200
full-batch epochs), trained on the training papers."""

from __future__ import annotations

import torch
from graph import load_graph, seed_torch, write_submission
from threadpoolctl import threadpool_limits
from torch import nn

threadpool_limits(limits=1)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

EPOCHS = 200
HIDDEN = 16


class GCN(nn.Module):
    def __init__(self, n_in: int, n_classes: int, adjacency: torch.Tensor) -> None:
        super().__init__()
        self.adjacency = adjacency
        self.first, self.second = nn.Linear(n_in, HIDDEN), nn.Linear(HIDDEN, n_classes)
        self.dropout = nn.Dropout(0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(torch.sparse.mm(self.adjacency, self.first(self.dropout(x))))
        return torch.sparse.mm(self.adjacency, self.second(self.dropout(x)))


def main() -> None:
    seed_torch()
    graph = load_graph()
    n = len(graph.y)
    source = torch.tensor(graph.edges["source"].to_numpy())
    target = torch.tensor(graph.edges["target"].to_numpy())
    rows = torch.cat([source, target, torch.arange(n)])
    cols = torch.cat([target, source, torch.arange(n)])
    index = torch.sparse_coo_tensor(torch.stack([rows, cols]), torch.ones(len(rows)), (n, n))
    index = index.coalesce().indices()  # a citation counts once
    scale = torch.bincount(index[0], minlength=n).float().pow(-0.5)
    adjacency = torch.sparse_coo_tensor(index, scale[index[0]] * scale[index[1]], (n, n))

    model = GCN(graph.features.shape[1], graph.n_classes, adjacency)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    train, valid = graph.split["train"], graph.split["valid"]
    for _ in range(EPOCHS):
        model.train()
        optimizer.zero_grad()
        logits = model(graph.features)
        nn.functional.cross_entropy(logits[train], graph.y[train]).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        predicted = model(graph.features).argmax(dim=1)
    print(f"valid accuracy {float((predicted[valid] == graph.y[valid]).float().mean()):.4f}")
    write_submission(graph.split["test"], predicted[graph.split["test"]])


if __name__ == "__main__":
    main()
