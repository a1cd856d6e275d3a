"""A run's page shows its two charts (report.html's SVG, as images) at a laptop's and a
phone's width, with a task whose trials all errored marked in both, and record text in a
chart (a task named like a script) drawn as text, never run."""

from __future__ import annotations

from pathlib import Path

import pytest
from view_browser import CHROMIUM, NARROW, WIDE, Browse
from view_runs import trial_result, write_run

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="chromium is absent: apt-get install chromium"),
    pytest.mark.parametrize("size", [WIDE, NARROW], ids=["1400", "390"]),
]
SCRIPT_TASK = "<script>window.__pwned=1</script>"
LOADED = ("() => [...document.querySelectorAll('#charts img')]"
          ".every((i) => i.complete && i.naturalWidth > 0)")


def _run(reports: Path) -> None:
    results = [trial_result(SCRIPT_TASK, "react", t, success=False, improvement=0.0,
                            outcome="error") for t in range(3)]
    results += [trial_result("house-price", "react", t, success=t == 0, improvement=0.2)
                for t in range(3)]
    write_run(reports, "charted", results)


def test_the_run_page_shows_its_charts_with_errors_and_runs_no_record_text(
    tmp_path: Path, browse: Browse, size: tuple[int, int]
) -> None:
    _run(tmp_path / "reports")
    b = browse(tmp_path / "reports", size)
    page = b.page
    page.goto(b.url + "#/run?run=0.charted")
    b.ready("run")
    page.wait_for_function(LOADED, timeout=30_000)
    images = page.locator("#charts img")
    assert images.count() == 2
    for name in ("success", "improvement"):
        box = page.locator(f"#chart-{name}").bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 200
        assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]  # whole in the window
    assert b.overflow() == 0
    b.shot(f"run-charts-{size[0]}")

    answer = page.request.get(b.url + "api/chart?run=0.charted&name=success")
    assert answer.ok and answer.headers["content-type"].startswith("image/svg+xml")
    svg = answer.text()
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in svg and "<script" not in svg
    assert ">all 3 trials errored</text>" in svg and "no data" not in svg
    improvement = page.request.get(b.url + "api/chart?run=0.charted&name=improvement").text()
    assert ">all 3 trials errored</text>" in improvement
    assert page.request.get(b.url + "api/chart?run=0.charted&name=other").status == 404
    assert page.locator("#app script").count() == 0
    assert page.evaluate("window.__pwned") is None
