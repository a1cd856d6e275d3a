"""The runs under some report folders: found by their results.json, read when asked,
and summarised for the run table."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_mlab.core.containment import describe_run, distinct
from pytest_mlab.core.results import RunResults, TrialResult, UnreadableResults
from pytest_mlab.report.browse.live import LiveCache, has_progress, run_state
from pytest_mlab.report.browse.metrics import rate
from pytest_mlab.report.browse.saved import SavedNames

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
    """Each folder of ``roots`` (or a root itself) that holds a results.json, or the
    progress files of a run under way."""
    found = []
    for number, root in enumerate(roots):
        folders = [root] if (root / RESULTS).is_file() or has_progress(root) else sorted(
            (p for p in root.iterdir() if p.is_dir()), key=lambda p: p.name
        ) if root.is_dir() else []
        for folder in folders:
            results = folder / RESULTS
            if (_inside(root, results) if results.is_file()
                    else has_progress(folder) and _inside(root, folder)):
                found.append(RunEntry(f"{number}.{folder.name}", root, folder))
    return found


class RunIndex:
    """The runs of ``roots``, each read once (again when its results.json changes)."""

    def __init__(self, roots: list[Path], storage: Path | None = None) -> None:
        self.roots = roots
        self.saved = SavedNames(storage)
        """The saved runs (``--mlab-storage``), for their names and the gate's baseline."""
        self._lock = threading.Lock()
        self._read: dict[str, tuple[int, int, RunResults | str]] = {}
        self._live = LiveCache()

    def entries(self) -> list[RunEntry]:
        return discover(self.roots)

    def entry(self, key: str) -> RunEntry | None:
        return next((e for e in self.entries() if e.key == key), None)

    def results(self, entry: RunEntry) -> RunResults | str:
        """The run's records (an unfinished run's so far), or the one sentence saying why
        they cannot be read."""
        recorded = self._recorded(entry)
        if run_state(entry.folder) is None:
            return recorded
        return self._live.results(entry.folder, None if isinstance(recorded, str) else recorded)

    def _recorded(self, entry: RunEntry) -> RunResults | str:
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


def _seconds(started: str, finished: str) -> float | None:
    """The run's wall time; None where a time is missing or unreadable."""
    try:
        seconds = (datetime.fromisoformat(finished) - datetime.fromisoformat(started))
    except (TypeError, ValueError):
        return None
    return seconds.total_seconds() if seconds.total_seconds() >= 0 else None


def agent_rates(results: list[TrialResult]) -> list[dict[str, Any]]:
    """Per agent x llm, its success and errors: one run's agents are never pooled."""
    groups: dict[tuple[str, str], list[TrialResult]] = {}
    for result in results:
        groups.setdefault((result.agent, result.llm or ""), []).append(result)
    return [{"agent": agent, "llm": llm or None, **rate(members)}
            for (agent, llm), members in sorted(groups.items())]


def summary(entry: RunEntry, run: RunResults | str, saved: dict[str, str],
            gate_baseline: str | None = None) -> dict[str, Any]:
    """One row of the run table; an unreadable run carries its reason instead."""
    if isinstance(run, str):
        return {"key": entry.key, "folder": entry.folder.name, "unreadable": run}
    results = run.results
    facets = sorted({(r.task, r.agent, r.llm or "", r.outcome, r.error_class or "")
                     for r in results})
    return {
        "key": entry.key, "folder": entry.folder.name, "run_id": run.run.run_id,
        "started": run.run.started, "finished": run.run.finished,
        "seconds": _seconds(run.run.started, run.run.finished),
        "saved": saved.get(run.run.run_id), "gate_baseline": run.run.run_id == gate_baseline,
        "complete": run.run.complete, "interrupted": run.run.interrupted,
        **_state(entry.folder),
        "agents": _distinct([r.agent for r in results]),
        "models": _distinct([r.llm for r in results]),
        "tasks": _distinct([r.task for r in results]),
        **rate(results), "groups": agent_rates(results),
        "cost": sum(r.cost for r in results),
        "facets": [list(f) for f in facets],
        "containment": containment(results),
    }


def _state(folder: Path) -> dict[str, Any]:
    """Whether the run is under way (``live``), and ``state``: running, stopped (its session
    gone before it finished) or None (finished, complete or not)."""
    state = run_state(folder)
    return {"live": state == "running", "state": state}


def run_table(index: RunIndex) -> dict[str, Any]:
    saved, gate = index.saved.names(), index.saved.gate_baseline()
    rows = [summary(entry, index.results(entry), saved, gate) for entry in index.entries()]
    rows.sort(key=lambda row: row.get("started", ""), reverse=True)
    return {"roots": [str(root) for root in index.roots], "runs": rows}
