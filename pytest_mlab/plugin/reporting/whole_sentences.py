"""A trial's one-sentence verdict, whole under pytest's short test summary.

The summary (-rf, -rE) cuts each line at the terminal's width unless on CI or at -vv, and a
trial's node id leaves little room: at 80 columns the sentence is gone. So each trial whose
line was cut gets one more line right under the summary, with its item name and the
sentence as results.json holds it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator
from typing import Any

import pytest

from pytest_mlab.core.plain_text import one_line
from pytest_mlab.plugin.reporting.records import PROPERTY

_SHOWN = (("failed", "f", "FAILED"), ("error", "E", "ERROR"))
"""The stats key of a kind of report, its -r letter and the word the summary gives it."""


def _pytest_cuts(config: pytest.Config) -> bool:
    """Whether pytest cuts its summary lines (as _pytest.terminal decides)."""
    on_ci = any(os.environ.get(name) for name in ("CI", "BUILD_NUMBER"))
    return bool(config.option.force_short_summary) or not (
        on_ci or config.get_verbosity() >= 2)


def _shown_message(report: Any) -> str:
    """The first line of the message pytest puts after the node id."""
    longrepr = report.longrepr
    message = longrepr if isinstance(longrepr, str) else getattr(
        getattr(longrepr, "reprcrash", None), "message", "")
    return str(message).partition("\n")[0]


def _sentence(report: Any) -> str | None:
    for name, value in getattr(report, "user_properties", ()):  # none on a CollectReport
        if name == PROPERTY:
            # One line whatever the record says: a line of its own could pass for pytest's.
            return one_line(str(json.loads(str(value))["message"]))
    return None


def _cwd_relative(config: pytest.Config, nodeid: str) -> str:
    """The item as pytest's short summary names it: its path relative to where pytest was
    started. (pytest 9.2's own ``cwd_relative_nodeid`` takes a structured id, and a string
    crashed the summary of every run started outside its rootdir that had a failure.)"""
    path, sep, rest = nodeid.partition("::")
    if config.invocation_params.dir != config.rootpath:
        path = os.path.relpath(config.rootpath / path, config.invocation_params.dir)
    return path + sep + rest


def whole_lines(terminalreporter: Any) -> list[str]:
    """One line per trial whose summary line pytest cut: word, item name, sentence."""
    config = terminalreporter.config
    if terminalreporter.no_summary or not _pytest_cuts(config):
        return []
    width = terminalreporter._tw.fullwidth
    lines = []
    for stat, letter, word in _SHOWN:
        if letter not in terminalreporter.reportchars:
            continue
        for report in terminalreporter.stats.get(stat, []):
            sentence = _sentence(report)
            shown = f"{word} {_cwd_relative(config, report.nodeid)} - "
            if sentence is None or len(shown + _shown_message(report)) <= width:
                continue
            name = report.nodeid.rpartition("::")[2]
            task = name.partition("[")[0]
            lines.append(f"{word} {name} - {sentence.removeprefix(f'{task}: ')}")
    return lines


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any) -> Generator[None, None, None]:
    """Outermost, so that pytest's short summary is written when this resumes."""
    try:
        return (yield)
    finally:
        for line in whole_lines(terminalreporter):
            terminalreporter.write_line(line, red=True)
