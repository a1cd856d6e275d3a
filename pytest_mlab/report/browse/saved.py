"""Which runs in the browser are also saved runs (``--mlab-save``'s storage folder), under
what name, and which one the gate compares with when ``--mlab-compare`` names none: the
latest saved. The storage folder is only read for these names: nothing in it is served."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from pytest_mlab.analysis.saved_runs import Storage


class SavedNames:
    """The saved runs of ``folder`` by run id, each file read once (again when it changes)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._ids: dict[Path, tuple[int, int, str | None]] = {}

    def _run_id(self, path: Path) -> str | None:
        try:
            stat = path.stat()
            with self._lock:
                cached = self._ids.get(path)
            if cached and cached[:2] == (stat.st_mtime_ns, stat.st_size):
                return cached[2]
            data = json.loads(path.read_text(encoding="utf-8"))
            run_id = data["run"]["run_id"] if isinstance(data, dict) else None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        found = run_id if isinstance(run_id, str) else None
        with self._lock:
            self._ids[path] = (stat.st_mtime_ns, stat.st_size, found)
        return found

    def _saved(self) -> list[tuple[str, str]]:
        """(run id, ``NNNN_name``) of each saved run, oldest first."""
        if self.folder is None or not self.folder.is_dir():
            return []
        found = []
        for saved in Storage(self.folder).runs():
            run_id = self._run_id(saved.path)
            if run_id is not None:
                found.append((run_id, saved.path.stem))
        return found

    def names(self) -> dict[str, str]:
        """Run id -> the saved file's name (the latest save of it)."""
        return dict(self._saved())

    def gate_baseline(self) -> str | None:
        """The run id of the run the gate compares with by default: the latest saved."""
        saved = self._saved()
        return saved[-1][0] if saved else None
