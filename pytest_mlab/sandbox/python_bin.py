"""``python`` in a sandbox: the trial's interpreter, whatever PATH the user had.

A folder in the cache holds ``python``, ``python3``, ``python3.X``, ``pip`` and ``pip3``,
each a two-line script that starts the trial's interpreter; the folder is shown read-only
in the sandbox at ``INSIDE``, first on its PATH, so the agent's experiments find the
task's libraries, and an agent's own tools come after it. Scripts, not links: a link to a
virtual environment's ``python`` starts the base interpreter without the environment's
packages (Python looks for ``pyvenv.cfg`` beside the path it was started by). Not the
interpreter's own folder either: Debian's /usr/bin has no ``python``, and a virtual
environment's bin would put every console script of the harness ahead of an agent's own
tools. A fixed path, not the folder's own: that lies in the cache, and a mount point at it
would make the cache's path appear in the sandbox (on its writable /tmp, where the cache
is under /tmp). The scripts run inside the sandbox, so the interpreter they start is under
its confinement like any other program there.
"""

from __future__ import annotations

import contextlib
import hashlib
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

INSIDE = "/run/pytest-mlab/bin"
"""Where a sandbox that has a mount namespace shows the folder (beside the launcher)."""


def _scripts(python: str) -> dict[str, str]:
    start = shlex.quote(python)
    run = f'#!/bin/sh\nexec {start} "$@"\n'
    pip = f'#!/bin/sh\nexec {start} -m pip "$@"\n'
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return {"python": run, "python3": run, version: run, "pip": pip, "pip3": pip}


def _current(folder: Path, scripts: dict[str, str]) -> bool:
    try:
        return sorted(p.name for p in folder.iterdir()) == sorted(scripts) and all(
            (folder / name).read_text() == text for name, text in scripts.items())
    except OSError:
        return False


def python_bin(cache_dir: Path, python: str = sys.executable) -> Path:
    """The folder of scripts that start ``python``, made once (several sessions may make
    it at the same time: each builds its own copy and the first to rename it in wins)."""
    scripts = _scripts(python)
    key = hashlib.sha256("\0".join(sorted(scripts.values())).encode()).hexdigest()[:16]
    folder = cache_dir.resolve() / "trial-python" / key
    if _current(folder, scripts):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    built = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    try:
        for name, text in scripts.items():
            (built / name).write_text(text)
            (built / name).chmod(0o555)
        built.chmod(0o555)  # the sandbox's user reads and runs them; nobody writes
        if folder.exists() and not _current(folder, scripts):
            _discard(folder)  # damaged: an interrupted copy, a file removed by hand
        with contextlib.suppress(OSError):  # another session renamed its copy in first
            built.rename(folder)
    finally:
        if built.exists():
            _discard(built)
    if not _current(folder, scripts):
        raise OSError(f"could not make the sandbox's python folder {folder}")
    return folder


def _discard(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.chmod(0o755)  # read-only folders cannot be emptied
    shutil.rmtree(folder, ignore_errors=True)
