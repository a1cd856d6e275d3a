"""Copy a file without holding it in memory: a reflink where the file system offers one,
else a copy inside the kernel that skips holes, else a plain streamed copy."""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import stat
from pathlib import Path

_FICLONE = 0x40049409  # linux/fs.h: _IOW(0x94, 9, int)
_CHUNK = 1 << 24
# Kernels or file systems that cannot do this kind of copy say so with one of these.
_UNSUPPORTED = {errno.EOPNOTSUPP, errno.ENOTTY, errno.EXDEV, errno.EINVAL, errno.ENOSYS,
                errno.EBADF, errno.ETXTBSY, errno.EPERM}


def _regular(fd: int, path: Path) -> int:
    """The size of the open file ``fd``; refuses FIFOs, devices and the like."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return info.st_size


def _clone(source: int, target: int) -> bool:
    try:
        fcntl.ioctl(target, _FICLONE, source)
    except OSError as error:
        if error.errno in _UNSUPPORTED:
            return False
        raise
    return True


def _data_ranges(fd: int, size: int) -> list[tuple[int, int]]:
    """(start, end) of each stretch of ``fd`` that holds data; holes are left out."""
    ranges, offset = [], 0
    try:
        while offset < size:
            start = os.lseek(fd, offset, os.SEEK_DATA)
            end = os.lseek(fd, start, os.SEEK_HOLE)
            ranges.append((start, end))
            offset = end
    except OSError as error:
        if error.errno != errno.ENXIO:  # ENXIO: no data after offset
            return [(0, size)]
    return ranges


def _copy_in_kernel(source: int, target: int, size: int) -> bool:
    """Copy the data stretches with copy_file_range; False if the kernel cannot."""
    copied = False
    for start, end in _data_ranges(source, size):
        offset = start
        while offset < end:
            try:
                done = os.copy_file_range(source, target, min(_CHUNK, end - offset),
                                          offset, offset)
            except OSError as error:
                if error.errno in _UNSUPPORTED and not copied:
                    return False
                raise
            if done == 0:
                break  # the file shrank while being copied
            offset += done
            copied = True
    os.ftruncate(target, size)
    return True


def copy_file(source: Path | str, target: Path | str, *, source_dir: int | None = None,
              target_dir: int | None = None, follow: bool = True) -> None:
    """Copy the regular file ``source`` over ``target`` (created, or truncated in place,
    keeping its inode and mode); either may be a name in an open folder (``source_dir``,
    ``target_dir``), so no path length limits it. Without ``follow`` a link at
    ``source`` is refused; a FIFO at either end fails at once instead of blocking."""
    nofollow = 0 if follow else os.O_NOFOLLOW
    read_fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | nofollow,
                      dir_fd=source_dir)
    try:
        write_fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC,
                           0o644, dir_fd=target_dir)
        try:
            copy_open(read_fd, write_fd, Path(source), Path(target))
        finally:
            os.close(write_fd)
    finally:
        os.close(read_fd)


def copy_open(read_fd: int, write_fd: int, source: Path, target: Path) -> None:
    """Copy the open regular file ``read_fd`` over ``write_fd`` (``source`` and
    ``target`` name them in errors)."""
    size = _regular(read_fd, source)
    _regular(write_fd, target)
    os.ftruncate(write_fd, 0)
    if not _clone(read_fd, write_fd) and not _copy_in_kernel(read_fd, write_fd, size):
        os.lseek(read_fd, 0, os.SEEK_SET)  # finding the holes moved it
        with open(read_fd, "rb", closefd=False) as reader, \
                open(write_fd, "wb", closefd=False) as writer:
            shutil.copyfileobj(reader, writer, 1 << 20)
