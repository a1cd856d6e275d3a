"""The probe that picks a session's isolation: a failure is tried again before a weaker
level is taken (a session that took netns for one failed probe of bwrap was refused by its
attestation, and a session allowed a weak sandbox would have run with it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_mlab.sandbox import isolation


def _fails_first(count: Path, failures: int) -> list[str]:
    """A probe that fails its first ``failures`` runs, then succeeds."""
    script = ("import pathlib, sys; p = pathlib.Path(sys.argv[1]); "
              "n = int(p.read_text() or 0) if p.exists() else 0; p.write_text(str(n + 1)); "
              f"sys.exit(1 if n < {failures} else 0)")
    return [sys.executable, "-c", script, str(count)]


@pytest.fixture(autouse=True)
def _no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolation, "PROBE_PAUSE_SECONDS", 0.0)


def test_a_probe_that_fails_once_is_tried_again_and_works(tmp_path: Path) -> None:
    count = tmp_path / "count"
    assert isolation._works(_fails_first(count, failures=1))
    assert count.read_text() == "2"


def test_a_probe_that_keeps_failing_says_so_after_three_tries(tmp_path: Path) -> None:
    count = tmp_path / "count"
    assert not isolation._works(_fails_first(count, failures=99))
    assert count.read_text() == "3"


def test_a_missing_program_is_no_working_probe() -> None:
    assert not isolation._works([str(Path("/nonexistent") / "bwrap"), "true"])
