"""Saved runs: numbered copies of results.json in a storage folder, found again by
number, name or path (in the manner of pytest-benchmark's storage)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_mlab.core.results import RunResults

DEFAULT_STORAGE = Path(".mlab") / "runs"
_SAVED = re.compile(r"(\d{4,})_(.+)\.json")


class SavedRunError(Exception):
    """A saved run that cannot be found or read; the message is one sentence."""


@dataclass(frozen=True)
class SavedRun:
    number: int
    name: str
    path: Path


class Storage:
    """A folder of ``NNNN_<name>.json`` files, each a whole run's ``RunResults``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def runs(self) -> list[SavedRun]:
        found = []
        for path in self.folder.glob("*.json"):
            match = _SAVED.fullmatch(path.name)
            if match:
                found.append(SavedRun(int(match.group(1)), match.group(2), path))
        return sorted(found, key=lambda run: run.number)

    def save(self, results: RunResults, name: str) -> SavedRun:
        number = max((run.number for run in self.runs()), default=0) + 1
        name = name or results.run.run_id
        path = self.folder / f"{number:04d}_{name}.json"
        results.write(path)
        return SavedRun(number, name, path)

    def find(self, wanted: str, base: Path) -> Path:
        """The latest run for ``''``; else by number (``3``, ``0003``), name, or a path
        (relative to ``base``) to a results.json or to the run folder holding one."""
        runs = self.runs()
        if not wanted:
            if not runs:
                raise SavedRunError(f"no saved runs in {self.folder}; save one with --mlab-save")
            return runs[-1].path
        if wanted.isdigit():
            matches = [run for run in runs if run.number == int(wanted)]
        else:
            matches = [run for run in runs if run.name == wanted]
        if matches:
            return matches[-1].path
        path = base / wanted
        if path.is_dir():
            path = path / "results.json"
        if path.is_file():
            return path
        saved = ", ".join(run.path.stem for run in runs[-5:]) or "none"
        raise SavedRunError(
            f"no saved run {wanted!r} in {self.folder} (latest: {saved}) and no such "
            "results.json; give a number, a name or a path"
        )


def load(path: Path) -> RunResults:
    from pytest_mlab.core.results import RunResults, UnreadableResults

    try:
        return RunResults.read(path)
    except UnreadableResults as exc:  # its message begins with the path
        raise SavedRunError(f"cannot read the run in {exc}") from None
