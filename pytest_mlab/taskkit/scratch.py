"""The folder a scorer shares with the sandboxed child it times, held by a descriptor.

The child may write anywhere in its working directory: it may rename the folder, put a
symbolic link to the scorer's own files in its place, or plant links, FIFOs and huge
files where the scorer expects its outputs. So the scorer holds the folder it made open
and works relative to that: it writes only files that do not exist yet, and reads only
regular files of a bounded size, without following links.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.core.tree import remove_tree

_READ_ERRORS = (OSError, ValueError, EOFError, MemoryError)


class Scratch:
    """A fresh folder ``path`` (it must not exist) for the inputs and outputs of calls."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.mkdir()
        except FileExistsError:
            # The submission holds the name: its copy cannot also be the scorer's folder.
            raise InvalidSubmission(
                f"The submission holds {path.name}, a name the scorer keeps for its own "
                "files; remove or rename it."
            ) from None
        self._fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)

    def write_inputs(self, name: str, inputs: Mapping[str, npt.ArrayLike]) -> None:
        """Write ``name`` (an .npz file) with ``inputs``; the child may not have made it."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        try:
            fd = os.open(name, flags, 0o644, dir_fd=self._fd)
        except FileExistsError:
            raise InvalidSubmission(
                f"The scoring process made {name} before the scorer wrote it."
            ) from None
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **inputs)  # type: ignore[arg-type]

    def read_output(self, name: str, what: str, max_bytes: int) -> npt.NDArray[np.generic]:
        """The array the child saved as ``name``; ``what`` names it in the sentences."""
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
        try:
            fd = os.open(name, flags, dir_fd=self._fd)
        except OSError as exc:
            raise InvalidSubmission(f"{what} is unreadable ({exc.strerror}).") from None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise InvalidSubmission(f"{what} is not a regular file.")
            if info.st_size > max_bytes:
                raise InvalidSubmission(f"{what} holds {info.st_size} bytes, more than the "
                                        f"{max_bytes} the scorer reads.")
            try:
                out = np.load(handle, allow_pickle=False)
            except _READ_ERRORS as exc:
                raise InvalidSubmission(f"{what} is unreadable ({exc}).") from None
        if not isinstance(out, np.ndarray):
            raise InvalidSubmission(f"{what} is an archive, not a single array.")
        return out

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)
        # A link put in the folder's place is removed, never what it points to; the
        # child may have left a tree too deep for shutil.rmtree.
        remove_tree(self.path)
