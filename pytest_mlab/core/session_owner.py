"""Which session is writing a run: its controller's host, pid and the pid's start time,
written into the run folder as its first trial starts. A reader on the same machine can
then tell a run still under way from one whose session was killed before it wrote
results.json; elsewhere it cannot, and says nothing."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from pytest_mlab.core.atomic import write_atomic


def _start_ticks(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot (/proc/PID/stat, field 22): a pid
    used again by a later process has another. None where it cannot be read."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        return int(text.rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def write_owner(path: Path) -> None:
    """Record this process as the session writing the run at ``path``'s folder."""
    pid = os.getpid()
    write_atomic(path, json.dumps({"host": socket.gethostname(), "pid": pid,
                                   "start": _start_ticks(pid)}))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's: it exists
    return True


def owner_gone(path: Path) -> bool:
    """Whether the session recorded at ``path`` has certainly ended: on this machine, its
    pid names no process, or one started at another time. False where that cannot be
    told (no record, a record of another machine, an unreadable one)."""
    try:
        owner = json.loads(path.read_text(encoding="utf-8"))
        host, pid, start = owner["host"], owner["pid"], owner.get("start")
    except (OSError, ValueError, TypeError, KeyError):
        return False
    if host != socket.gethostname() or not isinstance(pid, int) or pid <= 0:
        return False
    if not _alive(pid):
        return True
    return start is not None and _start_ticks(pid) not in (None, start)
