"""Live progress at -v: each running trial's step, tokens and cost, as it goes.

With ``-n``, trials write their latest step to ``traces/<trial>.progress.json`` and the
controller, which runs no trial and captures nothing, polls those files and prints a line
per step. On Ray the nodes hand their trials' steps to the controller, which writes them
into the same files. Without either, the trial runs in this very process: each step
rewrites the item's own line on the terminal, with capture suspended for the moment, so
nothing lands in the captured output and the item's line is not printed twice.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.plain_text import printable
from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.env.progress import read_progress
from pytest_mlab.plugin.reporting.line_poller import LinePoller
from pytest_mlab.report import format as fmt


def step_text(record: dict[str, Any]) -> str:
    return (f"step {record['step']} of {record['max_steps']} ({printable(str(record['action']))}), "
            f"{fmt.count(record['tokens'])} tokens, {fmt.money(record['cost'])}")


def progress_line(record: dict[str, Any]) -> str:
    return f"[mlab] {printable(str(record['trial']))}: {step_text(record)}"


class InlineProgress:
    """Without -n, on a terminal: the running item's line ends with its latest step, written
    after the item's name and erased before pytest writes the outcome, with capture
    suspended for the moment of writing."""

    def __init__(self, config: pytest.Config, terminal: Any) -> None:
        self.terminal = terminal
        self.capture: Any = config.pluginmanager.get_plugin("capturemanager")
        self.shown = 0

    def show(self, record: dict[str, Any]) -> None:
        text = " " + step_text(record)
        self._replace(text)

    def _replace(self, text: str) -> None:
        pad = max(0, self.shown - len(text))
        suspended = (self.capture.global_and_fixture_disabled() if self.capture is not None
                     else contextlib.nullcontext())
        with suspended:
            self.terminal.write("\b" * self.shown + text + " " * pad + "\b" * pad, flush=True)
        self.shown = len(text)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.shown:
            self._replace("")


class LiveProgress(LinePoller):
    def __init__(self, config: pytest.Config, run: RunFiles) -> None:
        super().__init__(config, "mlab-progress")
        self.run = run
        self._seen: dict[Path, int] = {}

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
