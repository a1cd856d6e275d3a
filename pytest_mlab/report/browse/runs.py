"""The runs under some report folders: found by their results.json, read when asked,
and summarised for the run table."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mlab.analysis.groups import RAN
from pytest_mlab.analysis.stats import wilson
from pytest_mlab.core.containment import describe_run, distinct
from pytest_mlab.core.results import RunResults, TrialResult, UnreadableResults

RESULTS = "results.json"


@dataclass(frozen=True)
class RunEntry:
    key: str
    """What a request names the run by: ``<folder number>.<run folder name>``."""
    root: Path
    """The report folder given on the command line: nothing outside it is read."""
    folder: Path


def _inside(root: Path, path: Path) -> bool:
    """Whether ``path``, links followed, lies in ``root``."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


def inside(entry: RunEntry, path: Path) -> bool:
    """Whether ``path`` (links followed) lies in the run's own folder."""
    return _inside(entry.folder, path)


def discover(roots: list[Path]) -> list[RunEntry]:
    """Each folder of ``roots`` (or a root itself) that holds a results.json."""
    found = []
    for number, root in enumerate(roots):
        folders = [root] if (root / RESULTS).is_file() else sorted(
            (p for p in root.iterdir() if p.is_dir()), key=lambda p: p.name
        ) if root.is_dir() else []
        for folder in folders:
            results = folder / RESULTS
            if results.is_file() and _inside(root, results):
                found.append(RunEntry(f"{number}.{folder.name}", root, folder))
    return found


class RunIndex:
    """The runs of ``roots``, each read once (again when its results.json changes)."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = roots
        self._lock = threading.Lock()
        self._read: dict[str, tuple[int, int, RunResults | str]] = {}

    def entries(self) -> list[RunEntry]:
        return discover(self.roots)

    def entry(self, key: str) -> RunEntry | None:
        return next((e for e in self.entries() if e.key == key), None)

    def results(self, entry: RunEntry) -> RunResults | str:
        """The run's records, or the one sentence saying why they cannot be read."""
        path = entry.folder / RESULTS
        try:
            stat = path.stat()
        except OSError as exc:
            return f"{path}: cannot be read: {exc}"
        with self._lock:
            cached = self._read.get(entry.key)
        if cached and cached[:2] == (stat.st_mtime_ns, stat.st_size):
            return cached[2]
        read: RunResults | str
        try:
            read = RunResults.read(path)
        except UnreadableResults as exc:
            read = str(exc)
        with self._lock:
            self._read[entry.key] = (stat.st_mtime_ns, stat.st_size, read)
        return read


def _distinct(values: list[str | None]) -> list[str]:
    return sorted({v for v in values if v})


def containment(results: list[TrialResult]) -> list[dict[str, Any]]:
    """A run's containments for the page: short (kind/isolation), in full, and weak."""
    recorded = [r.containment for r in results]
    found = distinct(recorded)
    if not found:
        return [{"short": "unknown", "text": text, "weak": False}
                for text in describe_run(recorded)]
    return [{"short": f"{c.kind}/{c.isolation}", "text": c.describe(), "weak": c.weak}
            for c in found]


def summary(entry: RunEntry, run: RunResults | str) -> dict[str, Any]:
    """One row of the run table; an unreadable run carries its reason instead."""
    if isinstance(run, str):
        return {"key": entry.key, "folder": entry.folder.name, "unreadable": run}
    results = run.results
    ran = [r for r in results if r.outcome in RAN]
    passed = sum(r.success for r in ran)
    low, high = wilson(passed, len(ran))
    facets = sorted({(r.task, r.agent, r.llm or "", r.outcome, r.error_class or "")
                     for r in results})
    return {
        "key": entry.key, "folder": entry.folder.name, "run_id": run.run.run_id,
        "started": run.run.started, "finished": run.run.finished,
        "complete": run.run.complete, "interrupted": run.run.interrupted,
        "agents": _distinct([r.agent for r in results]),
        "models": _distinct([r.llm for r in results]),
        "tasks": _distinct([r.task for r in results]),
        "trials": len(results), "ran": len(ran), "passed": passed,
        "interval": [low, high],
        "errors": sum(r.outcome == "error" for r in results),
        "unreproduced": sum(r.unreproduced for r in ran),
        "cost": sum(r.cost for r in results),
        "facets": [list(f) for f in facets],
        "containment": containment(results),
    }


def run_table(index: RunIndex) -> dict[str, Any]:
    rows = [summary(entry, index.results(entry)) for entry in index.entries()]
    rows.sort(key=lambda row: row.get("started", ""), reverse=True)
    return {"roots": [str(root) for root in index.roots], "runs": rows}
