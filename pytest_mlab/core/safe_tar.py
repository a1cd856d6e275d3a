"""Unpack a tar archive that must stay inside its folder, on every Python 3.11.

tarfile's extraction filters came in Python 3.11.4. Debian bookworm's Python, which the
harness images are built on, is 3.11.2: there ``extractall(..., filter=...)`` is a
TypeError, and without a filter it writes wherever the members' names and links lead.
So the rules are checked here, on every Python, before tarfile's own filter (where there
is one) runs; they are stricter than its ``tar`` filter, which lets a hard link name a
file outside the folder.
"""

from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path, PurePosixPath

_CLEARED_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWGRP | stat.S_IWOTH


class UnsafeMember(tarfile.TarError):
    """A member that would land outside the folder, or is not a file, folder or link."""


def extract(tar: tarfile.TarFile, folder: Path, *, links_out: bool) -> None:
    """Extract every member of ``tar`` into ``folder``. None may land outside it or be a
    device or FIFO, nor be written through a link, and no hard link leads out; a symbolic
    link may name a path outside the folder only if ``links_out``."""
    root = Path(os.path.realpath(folder))
    members = tar.getmembers()
    links = {PurePosixPath(m.name) for m in members if m.issym() or m.islnk()}
    for member in members:
        _check(member, root, links, links_out)
    if hasattr(tarfile, "data_filter"):
        tar.extractall(root, members=members, filter="tar" if links_out else "data")
    else:
        tar.extractall(root, members=members)  # every member is checked above


def _check(member: tarfile.TarInfo, folder: Path, links: set[PurePosixPath],
           links_out: bool) -> None:
    name = PurePosixPath(member.name)
    if name.is_absolute() or ".." in name.parts:
        raise UnsafeMember(f"{member.name!r} would land outside {folder}")
    # Through a link the archive makes, or one already in the folder.
    on_disk = Path(os.path.realpath(folder / name.parent))
    if any(parent in links for parent in name.parents) or not on_disk.is_relative_to(folder):
        raise UnsafeMember(f"{member.name!r} would be written through a link")
    if not (member.isreg() or member.isdir() or member.issym() or member.islnk()):
        raise UnsafeMember(f"{member.name!r} is not a file, folder or link")
    if member.islnk() or (member.issym() and not links_out):
        # A hard link names a member's path; a symbolic one, a path from its own folder.
        base = folder if member.islnk() else folder / name.parent
        target = os.path.normpath(base / member.linkname)
        if os.path.isabs(member.linkname) or not Path(target).is_relative_to(folder):
            raise UnsafeMember(f"{member.name!r} links outside {folder}: {member.linkname}")
    member.mode &= ~_CLEARED_BITS
    member.uid, member.gid, member.uname, member.gname = os.getuid(), os.getgid(), "", ""
