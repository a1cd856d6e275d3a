"""Draw a CPU-sized Fashion-MNIST subset: public train/test arrays and hidden test labels.

The images come from the Debian package dataset-fashion-mnist (the original IDX files
of Xiao, Rasul and Vollgraf, 2017), so preparing needs no network. Training images are
drawn from the original training set; the test images are the whole original test set, in
a drawn order, so that the score's sampling noise stays well below the gains it ranks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pytest_mlab.taskkit.secret import secret_rng
from pytest_mlab.taskkit.sources import load_fashion_mnist

N_TRAIN = 6000
N_TEST = 10000


def prepare(public: Path, private: Path) -> None:
    train_images, train_labels = load_fashion_mnist("train")
    test_images, test_labels = load_fashion_mnist("t10k")
    rng = secret_rng("fashion-cnn")
    train = rng.permutation(len(train_labels))[:N_TRAIN]
    test = rng.permutation(len(test_labels))[:N_TEST]
    ids = np.arange(1, N_TEST + 1)

    public.mkdir(parents=True, exist_ok=True)
    private.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        public / "train.npz", images=train_images[train], labels=train_labels[train]
    )
    np.savez_compressed(public / "test.npz", ids=ids, images=test_images[test])
    np.savez_compressed(private / "answers.npz", ids=ids, labels=test_labels[test])
