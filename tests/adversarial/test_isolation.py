"""Weaker isolation says what it leaves open, in the run's header, and every result
records the isolation its trial ran under."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.sandbox.isolation import DESCRIPTIONS, available

LEFT_OPEN = {
    "netns": ("the file system", "the harness's files", "other processes' environments"),
    "none": ("the file system", "the network", "other processes' environments"),
}


@pytest.mark.parametrize("level", LEFT_OPEN)
def test_weaker_isolation_says_what_it_does_not_protect(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], level: str,
) -> None:
    if not available(level):  # type: ignore[arg-type]
        pytest.skip(f"{level} isolation does not work on this machine")
    recorded("guess")
    run = pytester.runpytest("tasks", "--agent=oracle", f"--mlab-isolation={level}",
                             "--mlab-allow-weak-sandbox", *mlab_args)
    run.assert_outcomes(passed=1)
    description = DESCRIPTIONS[level]  # type: ignore[index]
    assert all(gap in description for gap in LEFT_OPEN[level])
    run.stdout.fnmatch_lines([
        f"mlab: sandbox=local isolation={level} ({description}); for more: "
        "apt-get install bubblewrap; in a container, *"
    ])
    (record,) = read_results()
    assert record["isolation"] == level
