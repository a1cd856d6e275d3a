"""The ladder's one-number rung: the starter fitted on every labelled image, holding none
out for validation (the strongest of that, 30 epochs, batch sizes 32 and 128 and learning
rates 1e-3, 6e-3 and 1e-2)."""

from __future__ import annotations

from fashion import load_images, seed_torch, write_submission  # first: OpenMP set-up

# isort: split
import torch
from threadpoolctl import threadpool_limits
from torch import nn

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

EPOCHS = 20
BATCH_SIZE = 64
LEARNING_RATE = 3e-3
VALIDATION_FRACTION = 0.0

seed_torch()


def make_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, kernel_size=5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )


@torch.no_grad()
def predict(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    model.eval()
    return torch.cat([model(batch).argmax(1) for batch in x.split(500)])


def main() -> None:
    x, y, x_test, test_ids = load_images()
    order = torch.randperm(len(y))
    n_val = int(len(y) * VALIDATION_FRACTION)
    val, fit = order[:n_val], order[n_val:]

    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    steps = EPOCHS * -(-len(fit) // BATCH_SIZE)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, LEARNING_RATE, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(EPOCHS):
        model.train()
        shuffled = fit[torch.randperm(len(fit))]
        for batch in shuffled.split(BATCH_SIZE):
            optimizer.zero_grad()
            loss = loss_fn(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            schedule.step()
        accuracy = (predict(model, x[val]) == y[val]).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, validation accuracy {accuracy:.4f}")

    write_submission(test_ids, predict(model, x_test))


if __name__ == "__main__":
    main()
