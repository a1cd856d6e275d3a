"""When a session attests its sandbox: a session of tasks at its start (the header shows
it), one that only collects never, one that also holds tests when its first trial runs."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def test_collecting_only_probes_nothing(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
) -> None:
    task_tree("guess")
    result = pytester.runpytest("tasks", "--co", *mlab_args)
    assert result.ret == pytest.ExitCode.OK
    assert not (pytester.path / "cache" / "attestations").exists()
    assert "mlab: containment" not in result.stdout.str()


def test_a_session_of_tests_and_tasks_attests_when_a_trial_runs(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest("tasks", "test_plain.py", "--agent=oracle",
                                "--mlab-allow-weak-sandbox", *mlab_args)
    result.assert_outcomes(passed=2)
    assert "mlab: containment" not in result.stdout.str()  # the header came before
    (record,) = read_results()
    (cached,) = (pytester.path / "cache" / "attestations").iterdir()
    assert record["containment"]["attestation_id"] in cached.read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="the harness must run as root")
def test_there_a_weak_sandbox_stops_the_session_at_its_first_trial(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
) -> None:
    recorded("guess")
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest("test_plain.py", "tasks", "--agent=oracle",
                                "--mlab-isolation=none", *mlab_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*Exit: the local sandbox (isolation none) failed its "
                                 "attestation on this machine: uid_map (*"])
