"""What a workspace occupies on disk, and how many files it holds, however deep,
long-named or linked its files are.

The walk goes from directory descriptor to directory descriptor (``openat`` of one name
at a time, never a path), without recursion, so neither a path past ``PATH_MAX`` nor
thousands of nested folders stop it. Every inode is counted once, with its allocated
blocks (directories included; hard links once), links are never followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
HELD_DESCRIPTORS = 64
"""Folders of the current path kept open; deeper ones are reached again through ``..``."""
_GONE = (errno.ENOENT, errno.ENOTDIR, errno.ELOOP)
"""A name that went or changed kind while the walk ran: there is nothing of it to count."""


class Unmeasurable(OSError):
    """The workspace holds something the harness may not read, so its size is unknown."""


@dataclass
class _Folder:
    fd: int | None
    identity: tuple[int, int]
    folders: list[str] = field(default_factory=list)
    """Subfolders not yet walked."""


@dataclass
class _Tally:
    blocks: int = 0
    inodes: int = 0
    linked: set[tuple[int, int]] = field(default_factory=set)

    def add(self, info: os.stat_result) -> None:
        if info.st_nlink > 1 and not stat.S_ISDIR(info.st_mode):
            key = (info.st_dev, info.st_ino)
            if key in self.linked:
                return
            self.linked.add(key)
        self.blocks += info.st_blocks
        self.inodes += 1


@dataclass(frozen=True)
class Usage:
    bytes: int
    """What the inodes occupy on disk."""
    files: int
    """How many inodes there are: files, folders and links of every kind, each once."""


def disk_usage(root: Path) -> int:
    """Bytes the inodes below ``root`` (and ``root`` itself) occupy on disk."""
    return usage(root).bytes


def usage(root: Path) -> Usage:
    """What the inodes below ``root`` (and ``root`` itself) occupy, and how many they are.

    Raises ``Unmeasurable`` where a folder or file cannot be read for want of permission.
    A folder moved while the walk runs may be missed by that walk (as by any walk), and
    is found by the next one.
    """
    tally = _Tally()
    fd = os.open(root, _OPEN_DIR)
    info = os.fstat(fd)
    tally.add(info)
    path = [_Folder(fd, (info.st_dev, info.st_ino))]
    try:
        _list(path[0], tally)
        while path:
            top = path[-1]
            if not top.folders:
                _leave(path)
                continue
            child = _enter(top, top.folders.pop(), tally)
            if child is not None:
                path.append(child)
                _list(child, tally)
                if len(path) > HELD_DESCRIPTORS:
                    _release(path[-HELD_DESCRIPTORS - 1])
    finally:
        for folder in path:
            _release(folder)
    return Usage(tally.blocks * 512, tally.inodes)


def _refused(exc: OSError) -> Unmeasurable:
    return Unmeasurable(exc.errno, f"the workspace holds a folder or file the harness may "
                                   f"not read ({exc.strerror})")


def _list(folder: _Folder, tally: _Tally) -> None:
    """Count the folder's files and note its subfolders."""
    assert folder.fd is not None
    try:
        with os.scandir(folder.fd) as entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        folder.folders.append(entry.name)
                    else:
                        tally.add(entry.stat(follow_symlinks=False))
                except OSError as exc:
                    if exc.errno not in _GONE:
                        raise
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise _refused(exc) from exc
        raise


def _enter(parent: _Folder, name: str, tally: _Tally) -> _Folder | None:
    """Open a subfolder by its name and count it; None where it is gone or is no folder."""
    assert parent.fd is not None
    try:
        fd = os.open(name, _OPEN_DIR, dir_fd=parent.fd)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise _refused(exc) from exc
        if exc.errno == errno.ENOTDIR:  # replaced by a file since it was listed
            with contextlib.suppress(FileNotFoundError):
                tally.add(os.stat(name, dir_fd=parent.fd, follow_symlinks=False))
        elif exc.errno not in _GONE:
            raise
        return None
    info = os.fstat(fd)
    tally.add(info)
    return _Folder(fd, (info.st_dev, info.st_ino))


def _leave(path: list[_Folder]) -> None:
    """Close the deepest folder and make sure its parent, if any, is open again: through
    ``..`` where it was released, if that still leads to the same folder."""
    done = path.pop()
    try:
        if not path or path[-1].fd is not None:
            return
        parent = path[-1]
        assert done.fd is not None
        fd = os.open("..", _OPEN_DIR, dir_fd=done.fd)
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) == parent.identity:
            parent.fd = fd
            return
        os.close(fd)
        # Moved meanwhile: what was left below the moved folder is skipped this time.
        while path and path[-1].fd is None:
            path.pop()
    finally:
        _release(done)


def _release(folder: _Folder) -> None:
    if folder.fd is not None:
        os.close(folder.fd)
        folder.fd = None
