"""What a workspace occupies on disk, and how many files it holds, however deep,
long-named or linked its files are: a sum over ``core.tree.Walk``, which goes from folder
descriptor to folder descriptor without recursion and never follows a link. Every inode is
counted once, with its allocated blocks (folders included; hard links once). A folder
replaced or moved while the walk runs may be missed by that walk, and is found by the next.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mlab.core.tree import GONE, REPLACED, Walk, open_folder

_REFUSED = (errno.EACCES, errno.EPERM)


class Unmeasurable(OSError):
    """The workspace holds something the harness may not read, so its size is unknown."""


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

    Raises ``Unmeasurable`` where a folder or file cannot be read for want of permission,
    and the ``OSError`` of any other reason a part of the tree could not be read.
    """
    fd = open_folder(root)
    tally = _Tally()
    try:
        tally.add(os.fstat(fd))
    finally:
        os.close(fd)
    walk = Walk(root, folders=True)
    for entry in walk:
        tally.add(entry.info)
    for rel, reason in (*walk.reasons.items(), *walk.unread):
        if reason in _REFUSED:
            raise Unmeasurable(reason, "the workspace holds a folder or file the harness may "
                                       f"not read ({os.strerror(reason)})")
        if reason not in (REPLACED, *GONE):
            raise OSError(reason, os.strerror(reason), rel)
    return Usage(tally.blocks * 512, tally.inodes)
