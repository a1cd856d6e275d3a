"""A run under way in a real headless Chromium: marked running in the run table, its page
showing each step as it lands without a reload (the delay printed), and once the run ends,
its final results and no more asking."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from view_browser import CHROMIUM, NARROW, WIDE, Browse, Browser
from view_live import LiveRun
from view_runs import two_runs

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="chromium is absent: apt-get install chromium"
)
LIVE_POLL_SECONDS = 2.0
"""How often live.js asks (its LIVE_POLL_MS)."""
BOUND = 30.0
"""Seconds a step may take to show: generous, the page asks every 2 s."""


def _shows_step(b: Browser, trial: str, step: int) -> float:
    """Seconds until the live table shows ``trial`` at ``step``."""
    start = time.monotonic()
    b.page.wait_for_selector(f"#live-trials tr[data-trial='{trial}'][data-step='{step}']",
                             timeout=BOUND * 1000)
    return time.monotonic() - start


def test_a_run_under_way_updates_without_a_reload_and_stops_asking_when_done(
    tmp_path: Path, browse: Callable[[Path], Browser],
) -> None:
    two_runs(tmp_path)
    live = LiveRun(tmp_path)
    live.step(0, 1)
    b = browse(tmp_path)
    page = b.page
    page.goto(b.url)
    b.ready("runs")
    assert page.locator("#runs tr:has-text('live-run') td.running").inner_text() == "running"
    assert page.locator("#runs tr:has-text('run-a') td.running").count() == 0

    page.locator("#runs a:has-text('live-run')").click()
    b.ready("run")
    page.wait_for_selector("#live[data-state=live]")
    row = page.locator("#live-trials tr[data-trial='house-price[react-0]']")
    assert row.locator("td.action").inner_text() == "Execute Script"
    assert row.locator("td.steps").inner_text() == "1 of 10"
    page.evaluate("window.__kept = document.getElementById('app')")  # gone after a reload

    delays = []
    for step, action in [(2, "Edit Script"), (3, "Understand File")]:
        live.step(0, step, action)
        delays.append(_shows_step(b, "house-price[react-0]", step))
        assert row.locator("td.action").inner_text() == action
    live.step(1, 1)
    delays.append(_shows_step(b, "house-price[react-1]", 1))
    print(f"live update delay: {', '.join(f'{d:.2f}s' for d in delays)} "
          f"(the page asks every {LIVE_POLL_SECONDS:g} s)")
    assert page.evaluate("window.__kept === document.getElementById('app')")
    b.shot("live-run")

    live.finish()
    # The page drawn again from results.json: the live table gone, every trial listed.
    page.wait_for_selector("#app[data-ready=run] #live[data-state=finished]", state="attached",
                           timeout=BOUND * 1000)
    assert page.locator("#live-trials").count() == 0
    assert page.locator("#trials tbody tr").count() == 2
    asked = len([u for u in b.requests if "/api/live" in u])
    time.sleep(3 * LIVE_POLL_SECONDS)
    assert len([u for u in b.requests if "/api/live" in u]) == asked


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["1400", "390"])
def test_a_run_whose_session_was_killed_reads_stopped_where_it_read_running(
    tmp_path: Path, browse: Browse, size: tuple[int, int],
) -> None:
    live = LiveRun(tmp_path)
    live.own()
    live.step(0, 1)
    b = browse(tmp_path, size)
    page = b.page
    page.goto(b.url)
    b.ready("runs")
    state = page.locator("#runs tr:has-text('live-run') td.running")
    assert state.inner_text() == "running" and state.get_attribute("data-label") == "state"
    page.locator("#runs a:has-text('live-run')").click()
    b.ready("run")
    page.wait_for_selector("#live[data-state=live]")
    span = page.locator("#run-span").inner_text()
    assert span.startswith("started ") and "still running; 0 trials" in span, span
    assert " \u2013 ;" not in span  # the span of a run with no end time

    live.kill_owner()
    page.wait_for_selector("#app[data-ready=run] #live[data-state=stopped]", state="attached",
                           timeout=BOUND * 1000)
    assert "stopped: its session ended before the run finished" in page.locator(
        "#run-span").inner_text()
    cut = page.locator("#live-trials tr[data-trial='house-price[react-0]'] td.stopped")
    assert cut.inner_text() == "stopped"
    assert page.locator("#live-note").inner_text().startswith("stopped: 1 trial cut off")
    asked = len([u for u in b.requests if "/api/live" in u])
    time.sleep(3 * LIVE_POLL_SECONDS)
    assert len([u for u in b.requests if "/api/live" in u]) == asked  # no more asking
    assert b.overflow() == 0
    b.shot(f"stopped-run-{size[0]}")
    page.goto(b.url)
    b.ready("runs")
    stopped = page.locator("#runs tr:has-text('live-run') td.stopped")
    assert stopped.inner_text() == "stopped" and stopped.get_attribute("data-label") == "state"
