"""The ladder's seed-pick rung: the starter, with the torch seed that gives the best
validation accuracy of 10 tried (a seed trick, not ML work)."""

from __future__ import annotations

import os

import torch
from graph import load_graph, write_submission
from threadpoolctl import threadpool_limits
from torch import nn

threadpool_limits(limits=1)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

EPOCHS = 10
BATCH_SIZE = 256
HIDDEN = 128
TRIED = 10


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    model.eval()
    with torch.no_grad():
        return float((model(x).argmax(dim=1) == y).float().mean())


def fitted(seed: int, x_train: torch.Tensor, y_train: torch.Tensor, n_classes: int) -> nn.Module:
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Linear(x_train.shape[1], HIDDEN),
        nn.ReLU(),
        nn.Dropout(0.5),
        nn.Linear(HIDDEN, n_classes),
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for _ in range(EPOCHS):
        model.train()
        for batch in torch.randperm(len(y_train)).split(BATCH_SIZE):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x_train[batch]), y_train[batch])
            loss.backward()
            optimizer.step()
    return model


def main() -> None:
    seed = int(os.environ.get("MLAB_SEED", "0"))
    graph = load_graph()
    features, y, split = graph.features, graph.y, graph.split
    x_train, y_train = features[split["train"]], y[split["train"]]
    x_valid, y_valid = features[split["valid"]], y[split["valid"]]

    models = [fitted(s, x_train, y_train, graph.n_classes)
              for s in range(seed * TRIED, (seed + 1) * TRIED)]
    model = max(models, key=lambda m: accuracy(m, x_valid, y_valid))
    print(f"Best validation accuracy: {accuracy(model, x_valid, y_valid):.4f}")
    model.eval()
    with torch.no_grad():
        predicted = model(features[split["test"]]).argmax(dim=1)
    write_submission(split["test"], predicted)


if __name__ == "__main__":
    main()
