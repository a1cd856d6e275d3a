"""The work before a task's first trial, said as it happens: its data preparation and its
baseline's measuring, one line as each starts and one as it ends, with the time it took;
each time (and each trial's scoring) kept for the forecast (core/phase_times.py).

Without -n a line goes to the terminal at once, capture suspended. An xdist worker has no
terminal: it appends the line to a file in the run's folder, which the controller polls
and prints, as it does each step's progress (plugin/reporting/progress.py).
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mlab.core.phase_times import Phase, record
from pytest_mlab.plugin.keys import SETTINGS_KEY
from pytest_mlab.plugin.reporting.line_poller import LinePoller
from pytest_mlab.report import format as fmt

LINES = "setup-lines"
"""The run folder's subfolder of the workers' lines, one file per worker."""


def say(config: pytest.Config, text: str) -> None:
    """One line to the terminal, or to the controller where this is an xdist worker."""
    line = f"mlab: {text}"
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        folder = config.stash[SETTINGS_KEY].run_files.root / LINES
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / f"{worker['workerid']}.log").open("a", encoding="utf-8") as out:
            out.write(line + "\n")
        return
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    if terminal is None:
        return
    capture = config.pluginmanager.get_plugin("capturemanager")
    with (capture.global_and_fixture_disabled() if capture is not None
          else contextlib.nullcontext()):
        terminal.ensure_newline()
        terminal.write_line(line)


@contextlib.contextmanager
def announced(config: pytest.Config, task: str, phase: Phase, doing: str,
              done: str) -> Iterator[None]:
    """Says ``task: doing`` now and ``task: done in <time>`` after, and keeps the time."""
    say(config, f"{task}: {doing}")
    start = time.monotonic()
    try:
        yield
    except BaseException:
        say(config, f"{task}: {doing.removesuffix('...')} stopped after "
                    f"{fmt.seconds(time.monotonic() - start)}")
        raise
    seconds = time.monotonic() - start
    say(config, f"{task}: {done} in {fmt.seconds(seconds)}")
    record(config.stash[SETTINGS_KEY].cache_dir, task, phase, seconds)


def kept(config: pytest.Config, task: str, phase: Phase, seconds: float) -> None:
    """Keeps a time said nowhere (a trial's scoring)."""
    record(config.stash[SETTINGS_KEY].cache_dir, task, phase, seconds)


class WorkerLines(LinePoller):
    """On the controller of -n: prints the lines the workers append, as they come."""

    def __init__(self, config: pytest.Config, folder: Path) -> None:
        super().__init__(config, "mlab-setup-lines")
        self.folder = folder
        self.read: dict[Path, int] = {}

    def finished(self) -> None:
        self.write(self.poll())
        shutil.rmtree(self.folder, ignore_errors=True)

    def poll(self) -> list[str]:
        """The whole lines written since the last poll."""
        lines: list[str] = []
        for path in sorted(self.folder.glob("*.log")):
            try:
                with path.open("rb") as handle:
                    handle.seek(self.read.get(path, 0))
                    chunk = handle.read()
            except OSError:
                continue
            whole = chunk[:chunk.rfind(b"\n") + 1]
            self.read[path] = self.read.get(path, 0) + len(whole)
            lines += whole.decode("utf-8", "replace").splitlines()
        return lines


def register(config: pytest.Config) -> None:
    """On the controller of -n: the poller of the workers' lines."""
    if getattr(config.option, "dist", "no") == "no":
        return
    poller = WorkerLines(config, config.stash[SETTINGS_KEY].run_files.root / LINES)
    config.pluginmanager.register(poller, "mlab-setup-lines")
    poller.start()
