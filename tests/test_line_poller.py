"""The terminal lines a poller prints start lines of their own, wherever pytest's own
output stands (under -n it writes progress letters without noting an open line)."""

from __future__ import annotations

import io

import pytest

from pytest_mlab.plugin.reporting.line_poller import LinePoller


class _Lines(LinePoller):
    def __init__(self, config: pytest.Config, lines: list[str]) -> None:
        super().__init__(config, "test-lines")
        self.lines = lines

    def poll(self) -> list[str]:
        found, self.lines = self.lines, []
        return found


@pytest.mark.parametrize("before", ["", "..", "tasks/a/task.toml .", ". [100%]"])
def test_polled_lines_start_on_a_line_of_their_own(pytester: pytest.Pytester,
                                                    before: str) -> None:
    config = pytester.parseconfig()
    out = io.StringIO()
    terminal = pytest.TerminalReporter(config, out)
    config.pluginmanager.register(terminal, "terminalreporter")
    if before.startswith("tasks/"):
        terminal.write_fspath_result("tasks/a/task.toml", ".")
    else:
        terminal._tw.write(before)  # as pytest writes its progress letters under -n
    poller = _Lines(config, ["mlab: a: data prepared in 0.1s", "mlab: a: baseline measured"])
    poller.write(poller.poll())
    terminal._tw.write(".")
    lines = out.getvalue().splitlines()
    assert lines[-3:] == ["mlab: a: data prepared in 0.1s", "mlab: a: baseline measured", "."]
    assert all(not line.startswith("mlab") for line in lines[:-3])
