"""Draw a CPU-sized Fashion-MNIST subset: public train/test arrays and hidden test labels.

The images come from the Debian package dataset-fashion-mnist (the original IDX files
of Xiao, Rasul and Vollgraf, 2017), so preparing needs no network. Training images are
drawn from the original training set and test images from the original test set.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from pytest_mlab import TaskUnavailable

SOURCE = Path("/usr/share/datasets/fashion-mnist")
SEED = 20170825
N_TRAIN = 6000
N_TEST = 2000


def read_idx(path: Path) -> np.ndarray:
    """An IDX file of unsigned bytes: magic (0, 0, 0x08, ndim), ndim big-endian sizes, data."""
    with gzip.open(path, "rb") as stream:
        raw = stream.read()
    if raw[:3] != b"\x00\x00\x08":
        raise ValueError(f"{path} is not an IDX file of unsigned bytes")
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load(split: str) -> tuple[np.ndarray, np.ndarray]:
    images = SOURCE / f"{split}-images-idx3-ubyte.gz"
    labels = SOURCE / f"{split}-labels-idx1-ubyte.gz"
    if not (images.is_file() and labels.is_file()):
        raise TaskUnavailable(
            f"Fashion-MNIST is not installed ({images} is missing): "
            "run: apt-get install dataset-fashion-mnist"
        )
    return read_idx(images), read_idx(labels)


def prepare(public: Path, private: Path) -> None:
    train_images, train_labels = load("train")
    test_images, test_labels = load("t10k")
    rng = np.random.default_rng(SEED)
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
