"""A thread of the controller that prints the lines a poll finds, every half second, until
the session ends (the trials' live steps; the workers' set-up lines under -n)."""

from __future__ import annotations

import threading

import pytest

POLL_SECONDS = 0.5


class LinePoller:
    """``poll`` says the lines found since the last one; ``finished`` runs once polling has
    stopped."""

    def __init__(self, config: pytest.Config, name: str) -> None:
        self.config = config
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self.finished()

    def _loop(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self.write(self.poll())

    def write(self, lines: list[str]) -> None:
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None and lines:
            start_line(terminal)
            for line in lines:
                terminal.write_line(line)

    def poll(self) -> list[str]:
        raise NotImplementedError

    def finished(self) -> None:
        """Nothing, unless a poller has something left to do."""


def start_line(terminal: pytest.TerminalReporter) -> None:
    """Go to the start of a line. Under -n pytest writes its progress letters without
    noting that a line is open (``ensure_newline`` looks only at the last file name it
    wrote), so the writer is asked where it stands: else a set-up line went on after
    ``....  [100%]``."""
    terminal.ensure_newline()
    if terminal._tw.width_of_current_line:
        terminal.line("")
