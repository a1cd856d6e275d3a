"""Which paths of a workspace changed since the last look, from Linux inotify.

A step that ran code may have touched any file; stat-ing every file after each such
step costs more than the rest of the step together. The kernel already knows what
changed, so the snapshotter asks it (through ``inotify_simple``). inotify watches one
directory at a time, so this module keeps a watch on every directory of the tree and
maps each watch back to its workspace-relative path. Whenever the answer could be
incomplete (queue overflow, a directory moved, a watch refused) ``changes`` returns
None and the caller walks everything. One known gap: writes through a shared memory
map raise no event unless the file was opened for writing during the step; the
snapshotter's closing walk at the end of a trial covers them.
"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

from inotify_simple import INotify, flags

_MASK = int(flags.MODIFY | flags.ATTRIB | flags.CLOSE_WRITE | flags.MOVED_FROM
            | flags.MOVED_TO | flags.CREATE | flags.DELETE | flags.DELETE_SELF
            | flags.MOVE_SELF | flags.ONLYDIR | flags.DONT_FOLLOW)
# Plain ints for the per-event tests: each IntEnum member lookup costs about 0.4 us.
_OVERFLOW = int(flags.Q_OVERFLOW)
_IGNORED = int(flags.IGNORED)
_SELF = int(flags.MOVE_SELF | flags.DELETE_SELF)
_ISDIR = int(flags.ISDIR)
_MOVED_FROM = int(flags.MOVED_FROM)
_APPEARED = int(flags.CREATE | flags.MOVED_TO)


class _Incomplete(Exception):
    """The events cannot name every change: the caller must walk."""


class WorkspaceWatch:
    """Watches every directory under ``root``; ``changes`` drains what happened."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._inotify: INotify | None = None
        self._dirs: dict[int, str] = {}
        self._restart()

    @classmethod
    def start(cls, root: Path) -> WorkspaceWatch | None:
        """A watch on ``root``, or None where inotify is missing or refuses."""
        try:
            return cls(root)
        except (OSError, AttributeError):  # AttributeError: a libc without inotify
            return None

    def _restart(self) -> None:
        self.close()
        self._inotify = INotify()
        self._watch_tree("")

    def _watch_tree(self, rel: str) -> None:
        """Watch the directory ``rel`` and every directory below it."""
        assert self._inotify is not None
        pending = [rel]
        while pending:
            current = pending.pop()
            path = self.root / current if current else self.root
            try:
                wd: int = self._inotify.add_watch(path, _MASK)
            except OSError as error:
                if current and error.errno in (errno.ENOENT, errno.ENOTDIR):
                    continue  # gone (or replaced by a file) already
                raise
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
        if self._inotify is None:
            return None
        changed: set[str] = set()
        try:
            # One read takes all that is queued; what comes later is the next call's.
            for event in self._inotify.read(timeout=0):
                self._note(event.wd, event.mask, event.name, changed)
        except (_Incomplete, OSError):
            try:
                self._restart()
            except OSError:
                self.close()
            return None
        return changed

    def _note(self, wd: int, mask: int, name: str, changed: set[str]) -> None:
        if mask & _OVERFLOW:
            raise _Incomplete
        if mask & _IGNORED:
            self._dirs.pop(wd, None)
            return
        parent = self._dirs.get(wd)
        if parent is None:
            return  # a directory whose watch was already removed
        if mask & _SELF:
            if not parent:
                raise _Incomplete  # the workspace itself went away
            return  # reported by the parent's watch
        if mask & _ISDIR:
            if mask & _MOVED_FROM:
                raise _Incomplete  # watches below it would keep the old path
            if mask & _APPEARED:
                # Files may have appeared before the watch did: the caller walks it,
                # after the watch exists, so nothing falls between the two.
                self._watch_tree(f"{parent}{name}/")
            changed.add(f"{parent}{name}/")
        else:
            changed.add(parent + name)

    def close(self) -> None:
        """Stop watching; ``changes`` returns None from now on."""
        if self._inotify is not None:
            # Closing a descriptor that holds watches waits out the kernel's grace period
            # (about 12 ms a trial): nothing reads it any more, so a thread closes it.
            threading.Thread(target=self._inotify.close, daemon=True).start()
            self._inotify = None
        self._dirs.clear()
