"""Read a submission's numpy files (.npy, .npz) without trusting them.

A pickle runs code; a 100-byte .npy header can declare terabytes, and a small .npz can
inflate to gigabytes. So nothing is unpickled, an array file or archive member larger
than the scorer allows is refused before it is read, and whatever numpy raises while
reading (a truncated file, a bad header, an allocation that fails) becomes
``InvalidSubmission`` with one sentence that names the file.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pytest_mlab.core.errors import InvalidSubmission

READ_ERRORS = (OSError, ValueError, EOFError, MemoryError, zipfile.BadZipFile)
"""What numpy raises on a file it cannot read; each means the submission is invalid."""
HEADER_BYTES = 1 << 16
"""Room for an array's header on top of its data."""


def _refuse_larger(what: str, size: int, max_bytes: int) -> None:
    if size > max_bytes + HEADER_BYTES:
        raise InvalidSubmission(f"{what} holds {size} bytes, more than the "
                                f"{max_bytes + HEADER_BYTES} an answer can need.")


def _present(path: Path) -> None:
    if not path.is_file():
        raise InvalidSubmission(f"No {path.name} was written to the workspace root.")


def load_npy(path: Path, max_bytes: int) -> npt.NDArray[np.generic]:
    """The array in ``path``, whose data may hold at most ``max_bytes``."""
    _present(path)
    _refuse_larger(path.name, path.stat().st_size, max_bytes)
    try:
        loaded = np.load(path, allow_pickle=False)
    except READ_ERRORS as error:
        raise InvalidSubmission(f"{path.name} is not a readable .npy array ({error}).") from None
    if not isinstance(loaded, np.ndarray):
        loaded.close()
        raise InvalidSubmission(f"{path.name} holds an archive, not a single array.")
    return loaded


def load_npz(
    path: Path, names: Sequence[str], max_bytes: int
) -> dict[str, npt.NDArray[np.generic]]:
    """The arrays ``names`` of the archive ``path``; each may hold at most ``max_bytes``."""
    _present(path)
    if not zipfile.is_zipfile(path):
        raise InvalidSubmission(
            f"{path.name} is not an .npz archive; write it with numpy.savez."
        )
    try:
        with zipfile.ZipFile(path) as archive:
            sizes = {info.filename: info.file_size for info in archive.infolist()}
        with np.load(path, allow_pickle=False) as data:
            absent = [key for key in names if key not in data.files]
            if absent:
                raise InvalidSubmission(f"{path.name} lacks the array(s) {', '.join(absent)}.")
            for key in names:
                size = sizes.get(f"{key}.npy", sizes.get(key, 0))
                _refuse_larger(f"{path.name}'s {key}", size, max_bytes)
            arrays = {key: data[key] for key in names}
    except READ_ERRORS as error:
        raise InvalidSubmission(f"{path.name} is not a readable .npz file ({error}).") from None
    # A member without numpy's header comes back as bytes.
    for key, value in arrays.items():
        if not isinstance(value, np.ndarray):
            raise InvalidSubmission(f"{path.name}'s {key} is not a numpy array.")
    return arrays
