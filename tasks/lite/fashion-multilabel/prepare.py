"""Compose multi-label scenes from Fashion-MNIST: public canvases and hidden label sets.

Each 56 x 56 canvas is a 2 x 2 grid of 28 x 28 slots; a seeded draw fills one to four
slots with distinct Fashion-MNIST images and leaves the rest black. A canvas is labelled
with the set of classes it shows. The images come from the Debian package
dataset-fashion-mnist, so preparing needs no network: training canvases use images of
the original training set, test canvases images of the original test set, and no image
appears twice.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_mlab.taskkit.secret import secret_rng
from pytest_mlab.taskkit.sources import load_fashion_mnist

N_TRAIN = 4000
N_TEST = 1500
N_CLASSES = 10
TILE = 28
GRID = 2


def compose(
    rng: np.random.Generator, images: np.ndarray, labels: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """n canvases and their (n, N_CLASSES) 0/1 label matrix."""
    size = TILE * GRID
    canvases = np.zeros((n, size, size), dtype=np.uint8)
    present = np.zeros((n, N_CLASSES), dtype=np.uint8)
    counts = rng.integers(1, GRID * GRID + 1, size=n)
    # Distinct source images throughout, so no tile is seen twice.
    pool = iter(rng.permutation(len(labels))[: counts.sum()])
    for i, count in enumerate(counts):
        for slot in rng.choice(GRID * GRID, size=count, replace=False):
            source = next(pool)
            row, col = divmod(int(slot), GRID)
            canvases[i, row * TILE : (row + 1) * TILE, col * TILE : (col + 1) * TILE] = images[
                source
            ]
            present[i, labels[source]] = 1
    return canvases, present


def prepare(public: Path, private: Path) -> None:
    train_images, train_labels = load_fashion_mnist("train")
    test_images, test_labels = load_fashion_mnist("t10k")
    rng = secret_rng("fashion-multilabel")
    x_train, y_train = compose(rng, train_images, train_labels, N_TRAIN)
    x_test, y_test = compose(rng, test_images, test_labels, N_TEST)
    ids = np.arange(1, N_TEST + 1)

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(public / "train.npz", images=x_train, labels=y_train)
    np.savez_compressed(public / "test.npz", ids=ids, images=x_test)
    np.savez_compressed(private / "answers.npz", ids=ids, labels=y_test)
