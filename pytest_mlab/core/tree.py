"""Walk and open a folder's files by descriptor, whatever its depth, path length or names.

An agent may leave thousands of nested folders, a path far past PATH_MAX (4096 bytes),
names that are not UTF-8, FIFOs, sockets and symbolic-link loops. Paths built from the
workspace's root fail on such trees (``ENAMETOOLONG``), recursion fails on their depth,
and a descriptor held per level runs out. So the walk holds one folder open at a time:
it goes down by name (never following a link) and back up by ``..``, checking that each
folder it reaches is the one it left; every file is opened relative to its folder. A
folder that cannot be entered is left out and named in ``Walk.skipped``, with the reason
in ``Walk.reasons``; an entry that cannot be looked at, in ``Walk.unread``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_Identity = tuple[int, int]
GONE = (errno.ENOENT, errno.ENOTDIR, errno.ELOOP)
"""A name that went or changed kind while the walk ran: there is nothing of it to read."""
REPLACED = 0
"""The reason of a folder replaced or moved while the walk ran (no errno says it)."""


@dataclass(frozen=True)
class Entry:
    """Anything but a folder, found by a walk; ``folder`` is open only until the walk
    goes on."""

    rel: str
    folder: int
    name: str
    info: os.stat_result

    @property
    def is_file(self) -> bool:
        return stat.S_ISREG(self.info.st_mode)


@dataclass
class _Frame:
    prefix: str
    identity: _Identity
    pending: list[tuple[str, _Identity]] = field(default_factory=list)
    listed: bool = False


def _identity(info: os.stat_result) -> _Identity:
    return info.st_dev, info.st_ino


def open_folder(root: Path | int, rel: str = "", *, create: bool = False) -> int:
    """A descriptor of the folder ``rel`` below ``root`` (a path or an open folder),
    reached one name at a time without following links; ``create`` makes what is
    missing. The caller closes it."""
    fd = os.open(root, _DIR) if isinstance(root, Path) else os.dup(root)
    try:
        for part in (p for p in rel.split("/") if p):
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
            child = os.open(part, _DIR, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def lstat_at(root: Path, rel: str) -> os.stat_result | None:
    """What ``rel`` below ``root`` is (links not followed); None if it is not there or
    cannot be reached."""
    folder, _, name = rel.rstrip("/").rpartition("/")
    try:
        fd = open_folder(root, folder)
    except OSError:
        return None
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False) if name else os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def enter(folder: int, name: str, identity: _Identity) -> int:
    """The subfolder ``name`` of ``folder`` opened, if still ``identity`` (else REPLACED)."""
    child = os.open(name, _DIR, dir_fd=folder)
    if _identity(os.fstat(child)) != identity:
        os.close(child)
        raise OSError(REPLACED, "replaced since it was listed", name)
    return child


def open_file(folder: int, name: str) -> int:
    """``name`` in ``folder``, opened to read; a link, FIFO or other non-regular file is
    refused (``OSError``) rather than followed or waited on."""
    fd = os.open(name, _FILE, dir_fd=folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", name)
    return fd


def sha256_fd(fd: int) -> str:
    """The sha256 of the open file ``fd``, read from its start."""
    digest = hashlib.sha256()
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        digest.update(chunk)
        offset += len(chunk)
    return digest.hexdigest()


class Walk:
    """Every entry below ``root`` but folders, folders walked, links not followed:
    ``for entry in Walk(root)``. ``folder`` starts the walk lower down (its entries'
    ``rel`` still start from ``root``); with ``folders``, each folder is an entry too,
    given before what it holds."""

    def __init__(self, root: Path, folder: str = "", *, folders: bool = False) -> None:
        self.root = root
        self.folder = folder.strip("/")
        self.folders = folders
        self.skipped: list[str] = []
        """Folders that could not be entered (their relative paths, ending in '/')."""
        self.reasons: dict[str, int] = {}
        """The errno that left each skipped folder out (``REPLACED``: it changed meanwhile)."""
        self.unread: list[tuple[str, int]] = []  # entries not looked at, not gone: errno
        self.top: os.stat_result | None = None
        """The starting folder's own facts, once the walk has opened it."""

    def _skip(self, rel: str, reason: int) -> None:
        self.skipped.append(rel)
        self.reasons[rel] = reason

    def __iter__(self) -> Iterator[Entry]:
        try:
            fd = open_folder(self.root, self.folder)
        except OSError as exc:
            self._skip(self.folder + "/", exc.errno or REPLACED)
            return
        self.top = os.fstat(fd)
        prefix = self.folder + "/" if self.folder else ""
        try:
            yield from self._walk(fd, prefix)
        finally:
            os.close(self._fd)

    def _walk(self, fd: int, prefix: str) -> Iterator[Entry]:
        self._fd = fd
        stack = [_Frame(prefix, _identity(os.fstat(fd)))]
        while stack:
            frame = stack[-1]
            if not frame.listed:
                frame.listed = True
                yield from self._list(frame)
            if frame.pending:
                name, identity = frame.pending.pop()
                reason = self._down(name, identity)
                if reason is None:
                    stack.append(_Frame(f"{frame.prefix}{name}/", identity))
                else:
                    self._skip(f"{frame.prefix}{name}/", reason)
                continue
            stack.pop()
            if stack and not self._up(stack):
                return

    def _list(self, frame: _Frame) -> Iterator[Entry]:
        try:
            names = os.listdir(self._fd)
        except OSError as exc:
            self._skip(frame.prefix, exc.errno or REPLACED)
            return
        for name in sorted(names):
            try:
                info = os.stat(name, dir_fd=self._fd, follow_symlinks=False)
            except OSError as exc:
                if exc.errno not in GONE:
                    self.unread.append((frame.prefix + name, exc.errno or REPLACED))
                continue
            if stat.S_ISDIR(info.st_mode):
                frame.pending.append((name, _identity(info)))
                if self.folders:
                    yield Entry(frame.prefix + name, self._fd, name, info)
            else:
                yield Entry(frame.prefix + name, self._fd, name, info)
        frame.pending.reverse()  # popped from the end: in name order

    def _down(self, name: str, identity: _Identity) -> int | None:
        """Into the subfolder ``name``; the errno that stopped it, or None."""
        try:
            child = enter(self._fd, name, identity)
        except OSError as exc:
            return exc.errno or REPLACED
        os.close(self._fd)
        self._fd = child
        return None

    def _up(self, stack: list[_Frame]) -> bool:
        """Back to the folder of ``stack[-1]``, by '..' or, if that is not it, by name
        from the root; False (and the rest left out) if neither reaches it."""
        frame = stack[-1]
        try:
            parent = os.open("..", _DIR, dir_fd=self._fd)
        except OSError:
            parent = -1
        if parent < 0 or _identity(os.fstat(parent)) != frame.identity:
            if parent >= 0:
                os.close(parent)
            try:
                parent = open_folder(self.root, frame.prefix)
            except OSError:
                parent = -1
            if parent < 0 or _identity(os.fstat(parent)) != frame.identity:
                if parent >= 0:
                    os.close(parent)
                for moved in stack:
                    self._skip(moved.prefix, REPLACED)
                return False
        os.close(self._fd)
        self._fd = parent
        return True


def _clear_files(fd: int, stuck: set[_Identity]) -> tuple[str, _Identity] | None:
    """Unlink every entry of ``fd`` but folders; one folder not in ``stuck``, or None."""
    found = None
    for name in os.listdir(fd):
        try:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode):
                os.unlink(name, dir_fd=fd)
            elif found is None and _identity(info) not in stuck:
                found = (name, _identity(info))
        except OSError:
            continue
    return found


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything below it, whatever its depth (``shutil.rmtree``
    recurses, and raises RecursionError a few thousand folders down). A link is
    removed, never followed; what cannot be removed is left, without an error."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            path.unlink()
            return
        fd = os.open(path, _DIR)
    except OSError:
        return
    above: list[_Identity] = []
    """The identity of each folder above the current one, the root first."""
    names: list[tuple[str, _Identity]] = []
    """The name (and identity) of each folder entered, in order."""
    stuck: set[_Identity] = set()
    try:
        while True:
            child = _clear_files(fd, stuck)
            if child is not None:
                try:
                    sub = enter(fd, *child)
                except OSError:
                    stuck.add(child[1])
                    continue
                above.append(_identity(os.fstat(fd)))
                names.append(child)
                os.close(fd)
                fd = sub
                continue
            if not names:
                break
            name, identity = names.pop()
            parent = os.open("..", _DIR, dir_fd=fd)
            if _identity(os.fstat(parent)) != above.pop():
                os.close(parent)
                return  # moved while being removed: stop rather than remove elsewhere
            os.close(fd)
            fd = parent
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                stuck.add(identity)
    except OSError:
        return
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(path)

