"""Live progress at -v: each running trial's step, tokens and cost, as it goes.

Trials write their latest step to ``traces/<trial>.progress.json``; the controller polls
those files, so the display works the same with and without ``-n`` (workers cannot
write to the controller's terminal).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.env.progress import read_progress
from pytest_mlab.report import format as fmt

POLL_SECONDS = 0.5


def progress_line(record: dict[str, Any]) -> str:
    return (f"[mlab] {record['trial']}: step {record['step']} of {record['max_steps']} "
            f"({record['action']}), {fmt.count(record['tokens'])} tokens, "
            f"{fmt.money(record['cost'])}")


class LiveProgress:
    def __init__(self, config: pytest.Config, run: RunFiles) -> None:
        self.config = config
        self.run = run
        self._seen: dict[Path, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="mlab-progress", daemon=True)

    def pytest_sessionstart(self) -> None:
        self._thread.start()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _loop(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            for line in self.poll():
                terminal = self.config.pluginmanager.get_plugin("terminalreporter")
                if terminal is not None:
                    terminal.write_line(line)

    def poll(self) -> list[str]:
        """Lines for the trials that took a step since the last poll."""
        lines = []
        for files in self.run.running():
            try:
                stamp = files.progress.stat().st_mtime_ns
                if self._seen.get(files.progress) == stamp:
                    continue
                record = read_progress(files.progress)
            except (OSError, ValueError):
                continue  # gone, or replaced while read: the next poll sees it
            self._seen[files.progress] = stamp
            lines.append(progress_line(record))
        return lines
