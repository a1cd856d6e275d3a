"""Where a forecast's history comes from: every run's results.json under the report folder
and every saved run (a trial found in both counts once), newest first and at most
``MAX_RUNS`` of them; and, for tasks never run, the starter's time in the suite's
validation.json."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_mlab.analysis.saved_runs import Storage
from pytest_mlab.core.validation_fingerprint import VALIDATION

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult

MAX_RUNS = 200
"""The newest runs read: the older ones would slow every start, and say less of today."""


@dataclass
class History:
    records: list[TrialResult] = field(default_factory=list)
    runs: int = 0
    """Runs read."""
    unreadable: list[Path] = field(default_factory=list)
    """Files that are no readable results.json (skipped)."""


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def run_paths(report_dir: Path, storage: Path) -> list[Path]:
    """The runs' results files, newest first, at most ``MAX_RUNS``."""
    found = [*report_dir.glob("*/results.json"), *(run.path for run in Storage(storage).runs())]
    return sorted(found, key=_mtime, reverse=True)[:MAX_RUNS]


def read_history(paths: Iterable[Path]) -> History:
    """The trials of the runs in ``paths``; a trial seen in two files (a run and its saved
    copy) counts once."""
    from pytest_mlab.core.results import RunResults, UnreadableResults

    history, seen = History(), set()
    for path in paths:
        try:
            run = RunResults.read(path)
        except UnreadableResults:
            history.unreadable.append(path)
            continue
        history.runs += 1
        for record in run.results:
            key = (run.run.run_id, record.nodeid)
            if key not in seen:
                seen.add(key)
                history.records.append(record)
    return history


def starter_floors(suites: Mapping[str, Path]) -> dict[str, float]:
    """Task -> the least seconds its starter took in its suite's validation.json (task ->
    suite folder): a trial takes at least that long. Tasks without a usable row have
    none."""
    rows: dict[Path, dict[str, object]] = {}
    floors = {}
    for task, suite in suites.items():
        if suite not in rows:
            rows[suite] = _validation_rows(suite / VALIDATION)
        row = rows[suite].get(task)
        seconds = row.get("baseline_seconds") if isinstance(row, dict) else None
        if isinstance(seconds, list):
            values = [float(s) for s in seconds if isinstance(s, int | float) and s > 0]
            if values:
                floors[task] = min(values)
    return floors


def _validation_rows(path: Path) -> dict[str, object]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}
