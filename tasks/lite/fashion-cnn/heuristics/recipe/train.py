"""The ladder's recipe rung: a standard small-image CNN recipe, written without insight
into the task: two convolution blocks with batch normalisation and dropout, trained on
every labelled image with Adam and a one-cycle schedule."""

from __future__ import annotations

from fashion import load_images, seed_torch, write_submission  # first: OpenMP set-up

# isort: split
import torch
import torch.nn.functional as F
from threadpoolctl import threadpool_limits
from torch import nn

threadpool_limits(limits=1)
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

EPOCHS = 10
BATCH_SIZE = 64
LEARNING_RATE = 3e-3

seed_torch()


def block(c_in: int, c_out: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, kernel_size=3, padding=1),
        nn.BatchNorm2d(c_out),
        nn.ReLU(),
        nn.MaxPool2d(2),
    )


@torch.no_grad()
def predict(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    model.eval()
    return torch.cat([model(batch).argmax(1) for batch in x.split(500)])


def main() -> None:
    x, y, x_test, test_ids = load_images()
    model = nn.Sequential(
        block(1, 32),
        block(32, 64),
        nn.Flatten(),
        nn.Dropout(0.25),
        nn.Linear(64 * 7 * 7, 128),
        nn.ReLU(),
        nn.Dropout(0.25),
        nn.Linear(128, 10),
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    steps = EPOCHS * -(-len(y) // BATCH_SIZE)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, LEARNING_RATE, total_steps=steps)
    for epoch in range(EPOCHS):
        model.train()
        for batch in torch.randperm(len(y)).split(BATCH_SIZE):
            loss = F.cross_entropy(model(x[batch]), y[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        print(f"epoch {epoch + 1}: last batch loss {loss.item():.3f}")
    write_submission(test_ids, predict(model, x_test))


if __name__ == "__main__":
    main()
