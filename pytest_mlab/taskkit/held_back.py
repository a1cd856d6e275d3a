"""Public data the agent gets blanked and the scorer gets whole (an original task's held-out
text, its test labels).

The agent's copy keeps every file, so a starter that opens them still runs; the held-back
ones are empty, have a column blanked, or are what a task's blanker makes of them (its
test labels gone). The scorer's versions live under ``private/held/`` with the same
relative paths, and the original eval.py runs in a folder where they stand in for the
agent's.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from collections.abc import Callable
from pathlib import Path

HELD = "held"
"""The folder under the private data that holds the scorer's versions."""


Blank = Callable[[str, Path, Path], bytes]
"""The agent's copy of a withheld file, from its path in the data, the scorer's version and
the public data (which may say which rows are held out)."""


def empty(rel: str, held: Path, public: Path) -> bytes:
    """An empty file: what the agent gets of withheld data by default."""
    return b""


def hold_back(public: Path, private: Path, patterns: tuple[str, ...],
              blank: Blank = empty) -> None:
    """Move the public files that ``patterns`` name to ``private/held`` and leave in
    each's place what ``blank`` makes of it (by default an empty file); a pattern that
    names no file is a ``RuntimeError``, as a renamed folder would otherwise put the
    held-out data in the agent's hands."""
    files = sorted(p.relative_to(public).as_posix() for p in public.rglob("*") if p.is_file())
    for pattern in patterns:
        chosen = [rel for rel in files if fnmatch.fnmatch(rel, pattern)]
        if not chosen:
            raise RuntimeError(f"withhold_files {pattern!r} names none of the data the "
                               "original prepare.py wrote")
        for rel in chosen:
            (private / HELD / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(public / rel, private / HELD / rel)
            (public / rel).write_bytes(blank(rel, private / HELD / rel, public))


def link_for_eval(public: Path, held: Path, into: Path) -> None:
    """Fill ``into`` with links to the public data, the held-back versions standing in for
    the agent's; folders that hold some are rebuilt, the rest linked whole."""
    for entry in sorted(public.iterdir()) if public.is_dir() else []:
        target, own = into / entry.name, held / entry.name
        if own.is_dir() and entry.is_dir():
            target.mkdir()
            link_for_eval(entry, own, target)
        else:
            os.symlink(own if own.exists() else entry, target)
