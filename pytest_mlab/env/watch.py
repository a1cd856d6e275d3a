"""Which paths of a workspace changed since the last look, from Linux inotify.

A step that ran code may have touched any file; stat-ing every file after each such
step costs more than the rest of the step together. The kernel already knows what
changed, so the snapshotter asks it. Whenever the answer could be incomplete (queue
overflow, a directory moved, a watch refused) ``changes`` returns None and the caller
walks everything. One known gap: writes through a shared memory map raise no event
unless the file was opened for writing during the step; the snapshotter's closing walk
at the end of a trial covers them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
from pathlib import Path

_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ONLYDIR = 0x1000000
_IN_DONT_FOLLOW = 0x2000000
_IN_ISDIR = 0x40000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC

_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO
         | _IN_CREATE | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF
         | _IN_ONLYDIR | _IN_DONT_FOLLOW)
_HEADER = struct.Struct("iIII")


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.inotify_init1, libc.inotify_add_watch  # noqa: B018 - probe: absent off Linux
    except (OSError, AttributeError):
        return None
    return libc


class _Incomplete(Exception):
    """The events cannot name every change: the caller must walk."""


class WorkspaceWatch:
    """Watches every directory under ``root``; ``changes`` drains what happened."""

    def __init__(self, libc: ctypes.CDLL, root: Path) -> None:
        self._libc = libc
        self.root = root
        self._fd = -1
        self._dirs: dict[int, str] = {}
        self._restart()

    @classmethod
    def start(cls, root: Path) -> WorkspaceWatch | None:
        """A watch on ``root``, or None where inotify is missing or refuses."""
        libc = _libc()
        if libc is None:
            return None
        try:
            return cls(libc, root)
        except OSError:
            return None

    def _restart(self) -> None:
        self.close()
        fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._fd = fd
        self._watch_tree("")

    def _watch_tree(self, rel: str) -> None:
        """Watch the directory ``rel`` and every directory below it."""
        pending = [rel]
        while pending:
            current = pending.pop()
            path = self.root / current if current else self.root
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), _MASK)
            if wd < 0:
                errno = ctypes.get_errno()
                if current and errno in (2, 20):  # ENOENT, ENOTDIR: gone already
                    continue
                raise OSError(errno, f"inotify_add_watch failed for {path}")
            self._dirs[wd] = current
            try:
                with os.scandir(path) as entries:
                    pending.extend(f"{current}{e.name}/" for e in entries
                                   if e.is_dir(follow_symlinks=False))
            except FileNotFoundError:
                continue

    def changes(self) -> set[str] | None:
        """Workspace-relative paths changed since the last call (a directory path
        ends in '/' and stands for everything under it); None: walk everything."""
        if self._fd < 0:
            return None
        changed: set[str] = set()
        try:
            while True:
                try:
                    buffer = os.read(self._fd, 1 << 16)
                except BlockingIOError:
                    return changed
                self._parse(buffer, changed)
        except (_Incomplete, OSError):
            self._drain()
            try:
                self._restart()
            except OSError:
                self.close()
            return None

    def _parse(self, buffer: bytes, changed: set[str]) -> None:
        offset = 0
        while offset < len(buffer):
            wd, mask, _cookie, length = _HEADER.unpack_from(buffer, offset)
            offset += _HEADER.size
            name = os.fsdecode(buffer[offset:offset + length].rstrip(b"\0"))
            offset += length
            if mask & _IN_Q_OVERFLOW:
                raise _Incomplete
            if mask & _IN_IGNORED:
                self._dirs.pop(wd, None)
                continue
            parent = self._dirs.get(wd)
            if parent is None:
                continue  # a directory whose watch was already removed
            if mask & (_IN_MOVE_SELF | _IN_DELETE_SELF):
                if not parent:
                    raise _Incomplete  # the workspace itself went away
                continue  # reported by the parent's watch
            if mask & _IN_ISDIR:
                if mask & _IN_MOVED_FROM:
                    raise _Incomplete  # watches below it would keep the old path
                if mask & (_IN_CREATE | _IN_MOVED_TO):
                    # Files may have appeared before the watch did: the caller walks it.
                    self._watch_tree(f"{parent}{name}/")
                changed.add(f"{parent}{name}/")
            else:
                changed.add(parent + name)

    def _drain(self) -> None:
        while True:
            try:
                os.read(self._fd, 1 << 16)
            except (BlockingIOError, OSError):
                return

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._dirs.clear()
