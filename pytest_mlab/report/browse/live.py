"""Runs in progress, read from the files a run writes as it goes.

While a session runs, each trial rewrites ``traces/<trial>.progress.json`` after every step
and writes ``traces/<trial>.result.json`` when judged; results.json comes only at the end
(a resumed run's is there from before, and is rewritten at the end). So a run is unfinished
while it has progress files and no results.json, or one older than its newest progress or
result. An unfinished run is running, unless the session that wrote it (session.json) is
known to be gone: then it was stopped, killed before it could write results.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from pytest_mlab.core.results import RunInfo, RunResults, TrialResult
from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.core.session_owner import owner_gone

PROGRESS = ".progress.json"
RESULT = ".result.json"


def _stamps(folder: Path) -> dict[str, tuple[int, int]]:
    """Each progress and result file of the run: name -> (mtime in ns, size)."""
    found = {}
    try:
        with os.scandir(RunFiles(folder).traces) as entries:
            for entry in entries:
                if entry.name.endswith((PROGRESS, RESULT)):
                    stat = entry.stat()
                    found[entry.name] = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        pass
    return found


def _results_time(folder: Path) -> int | None:
    try:
        return RunFiles(folder).results.stat().st_mtime_ns
    except OSError:
        return None


def has_progress(folder: Path) -> bool:
    """Whether any trial of the run has written a progress file."""
    return any(name.endswith(PROGRESS) for name in _stamps(folder))


def _unfinished(stamps: dict[str, tuple[int, int]], results: int | None) -> bool:
    if not any(name.endswith(PROGRESS) for name in stamps):
        return False
    return results is None or max(mtime for mtime, _ in stamps.values()) > results


RunState = Literal["running", "stopped"]


def _state(folder: Path, stamps: dict[str, tuple[int, int]]) -> RunState | None:
    if not _unfinished(stamps, _results_time(folder)):
        return None
    return "stopped" if owner_gone(RunFiles(folder).owner) else "running"


def run_state(folder: Path) -> RunState | None:
    """``running`` while a session is (as far as its files tell) still writing the run,
    ``stopped`` where that session is gone before it finished, None where its
    results.json has every trial it wrote."""
    return _state(folder, _stamps(folder))


def is_live(folder: Path) -> bool:
    """Whether a session is (as far as its files tell) still writing this run."""
    return run_state(folder) == "running"


def change_token(folder: Path) -> str:
    """Changes whenever a step lands, a trial ends, results.json is written or the session
    writing the run is found gone."""
    stamps = _stamps(folder)
    text = json.dumps([sorted(stamps.items()), _results_time(folder), _state(folder, stamps)])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _own(folder: Path, path: Path) -> bool:
    """Whether ``path``, links followed, lies in the run's folder: nothing else is read."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return False


def _read(folder: Path, path: Path) -> dict[str, Any] | None:
    if not _own(folder, path):
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # gone, or being replaced: the next poll reads it
    return record if isinstance(record, dict) else None


def _trial_state(name: str, folder: Path) -> dict[str, Any] | None:
    files = RunFiles(folder).trial(name)
    record = _read(folder, files.progress)
    if record is None:
        return None
    result = _read(folder, files.result) if files.result.exists() else None
    started, at = record.get("started"), record.get("at")
    return {"trial": str(record.get("trial", name)), "step": record.get("step"),
            "max_steps": record.get("max_steps"), "action": str(record.get("action", "")),
            "tokens": record.get("tokens"), "cost": record.get("cost"),
            "started": started, "at": at, "done": result is not None,
            "outcome": None if result is None else result.get("outcome"),
            "elapsed": at - started if isinstance(at, float | int)
            and isinstance(started, float | int) else None}


def live_state(folder: Path) -> dict[str, Any]:
    """The run's trials as their progress files have them, running ones first."""
    stamps = _stamps(folder)
    names = sorted(n.removesuffix(PROGRESS) for n in stamps if n.endswith(PROGRESS))
    trials = [t for t in (_trial_state(n, folder) for n in names) if t is not None]
    trials.sort(key=lambda t: (t["done"], t["trial"]))
    state = _state(folder, stamps)
    return {"live": state == "running", "state": state, "now": time.time(), "trials": trials,
            "running": sum(not t["done"] for t in trials),
            "finished": sum(t["done"] for t in trials)}


def live_update(folder: Path, since: str) -> dict[str, Any]:
    """The run's live state, or only its token where nothing changed since ``since``."""
    token = change_token(folder)
    if token == since:
        return {"token": token, "unchanged": True}
    return {"token": token, "unchanged": False, **live_state(folder)}


def _started(folder: Path, states: list[dict[str, Any]]) -> str:
    times = [t["started"] for t in states if isinstance(t["started"], float | int)]
    moment = min(times) if times else RunFiles(folder).traces.stat().st_mtime
    return datetime.fromtimestamp(moment).isoformat(timespec="seconds")


def provisional(folder: Path, earlier: RunResults | None) -> RunResults:
    """The run so far: its trials judged in this session over those of results.json, if
    an earlier session wrote one; marked incomplete."""
    records = {r.nodeid: r for r in earlier.results} if earlier is not None else {}
    for name in sorted(_stamps(folder)):
        if name.endswith(RESULT) and _own(folder, RunFiles(folder).traces / name):
            try:
                record = TrialResult.model_validate_json(
                    (RunFiles(folder).traces / name).read_bytes())
            except (OSError, ValidationError):
                continue
            records[record.nodeid] = record
    if earlier is not None:
        info = earlier.run.model_copy(update={"complete": False})
    else:
        info = RunInfo(run_id=folder.name, started=_started(folder, live_state(folder)["trials"]),
                       finished="", command=[], machine="", pytest_mlab_version="",
                       complete=False)
    return RunResults(run=info, results=list(records.values()))


class LiveCache:
    """Each live run's provisional records, made again only when its token changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: dict[Path, tuple[str, RunResults]] = {}

    def results(self, folder: Path, earlier: RunResults | None) -> RunResults:
        token = change_token(folder)
        with self._lock:
            cached = self._made.get(folder)
        if cached is not None and cached[0] == token:
            return cached[1]
        made = provisional(folder, earlier)
        with self._lock:
            self._made[folder] = (token, made)
        return made
