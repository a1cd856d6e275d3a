"""The wait for a child's end: woken by its pidfd, else by Popen's own wait."""

from __future__ import annotations

import os
import subprocess

import pytest

from pytest_mlab.sandbox.exit_watch import ExitWatch


@pytest.fixture(params=["pidfd", "no pidfd"])
def watch_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "no pidfd":
        def refused(pid: int) -> int:
            raise OSError("pidfd_open is not available")

        monkeypatch.setattr(os, "pidfd_open", refused)
    return str(request.param)


def test_a_running_child_is_not_ended_and_an_ended_one_is_reaped(watch_kind: str) -> None:
    proc = subprocess.Popen(["sleep", "0.5"])
    watch = ExitWatch(proc)
    assert (watch._fd is not None) == (watch_kind == "pidfd")
    try:
        assert not watch(0.05)
        assert proc.returncode is None
        assert watch(30)
        assert proc.returncode == 0
        assert watch(0)  # asked again once ended, it still says so
    finally:
        watch.close()
        proc.kill()
        proc.wait()


def test_a_child_killed_by_a_signal_is_seen_ended(watch_kind: str) -> None:
    proc = subprocess.Popen(["sleep", "30"])
    watch = ExitWatch(proc)
    try:
        proc.kill()
        assert watch(30)
        assert proc.returncode == -9
    finally:
        watch.close()
