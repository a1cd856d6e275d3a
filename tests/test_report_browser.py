"""The report opens in a real browser (headless Chromium) offline, runs its script without
errors and shows the run's numbers."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.core.results import RunResults
from pytest_mlab.report import format as fmt
from pytest_mlab.report.model import build_report

CHROMIUM = shutil.which("chromium")
WINDOW = (1280, 2000)
BLANK_PNG = 40_000
"""A blank page's screenshot at WINDOW is about 12 kB; a report's is several times that."""

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is absent: apt-get install chromium"
)


def _chromium(tmp_path: Path, page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
         *args, page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )


def _console(stderr: str) -> list[str]:
    """Chromium logs every console message and uncaught error as a CONSOLE line."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_console_check_sees_an_uncaught_error(tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><p>x</p><script>null.property;</script>")
    done = _chromium(tmp_path, page, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert any("Uncaught TypeError" in line for line in _console(done.stderr))


def test_the_report_renders_offline_without_console_errors_and_shows_the_numbers(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    tmp_path: Path,
) -> None:
    recorded("guess")
    pytester.runpytest(
        "tasks", "--agent=oracle", "--agent=scripted_agents:GarbageAgent", *mlab_args
    ).assert_outcomes(passed=1, failed=1)
    (results,) = pytester.path.glob("reports/*/results.json")
    report = results.parent / "report.html"
    model = build_report(RunResults.read(results), results.parent)

    screenshot = tmp_path / "report.png"
    shot = _chromium(tmp_path, report, f"--screenshot={screenshot}",
                     f"--window-size={WINDOW[0]},{WINDOW[1]}")
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert _png_size(screenshot) == WINDOW
    assert screenshot.stat().st_size > BLANK_PNG
    assert _console(shot.stderr) == []

    dom = _chromium(tmp_path, report, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console(dom.stderr) == []
    page = dom.stdout
    # Set by the report's script on its last line, and only where nothing threw.
    assert 'data-mlab-ready="yes"' in page and 'data-mlab-errors="' not in page
    assert "2 of 2 trials shown" in page  # written by the script, not in the file
    records = json.loads(results.read_text())["results"]
    for row in model.rows:
        assert f"{row.passed}/{row.ran}" in page
        assert fmt.interval(row.success_low, row.success_high) in page
        assert fmt.percent(row.valid_rate) in page
    for record in records:
        assert record["message"] in page
    oracle = next(r for r in records if r["agent"] == "oracle")
    assert fmt.percent(oracle["improvement"], signed=True) in page
