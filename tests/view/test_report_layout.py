"""report.html in a real headless Chromium at a laptop's and a phone's width: its results
table, every column shown, fits a 1400 px window; on a phone it scrolls in its own box with
the task kept in view, and its errors column can be scrolled to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from view_browser import ARGS, CHROMIUM, NARROW, WIDE
from view_runs import trial_result

from pytest_mlab.core.results import RunInfo, RunResults
from pytest_mlab.report.html import write_report
from pytest_mlab.report.model import build_report

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="chromium is absent: apt-get install chromium"),
    pytest.mark.parametrize("size", [WIDE, NARROW], ids=["1400", "390"]),
]
LLM = "gpt-4o-mini-2024-07-18"

# Where a header lies against its scroll box and the window, after scrolling it into view.
PLACE = """(name) => {
  const th = [...document.querySelectorAll('table.results th')].find(h => h.textContent === name);
  const box = th.closest('.wide');
  box.scrollLeft = 0;
  th.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const r = th.getBoundingClientRect(), b = box.getBoundingClientRect();
  const sticky = document.querySelector('table.results th').getBoundingClientRect();
  return {left: r.left, right: r.right, boxLeft: b.left, boxRight: b.right,
          stickyRight: sticky.right, scrolls: box.scrollWidth > box.clientWidth,
          window: document.documentElement.clientWidth};
}"""


@pytest.fixture
def report(tmp_path: Path) -> Path:
    """Every column report.html has: errors (and so the columns with errors), an llm with a
    long name, an analogue-length task name."""
    results = [trial_result(task, "react", t, success=t == 0, improvement=0.2 * (t == 0),
                            outcome="error" if t == 2 else "", cost=0.01)
               for task in ("house-price", "spaceship-titanic") for t in range(3)]
    for result in results:
        result.llm = LLM
    info = RunInfo(run_id="wide", started="s", finished="f", command=["pytest"], machine="m",
                   pytest_mlab_version="0")
    return write_report(build_report(RunResults(run=info, results=results), tmp_path),
                        tmp_path / "report.html")


@pytest.fixture
def page_at(size: tuple[int, int]) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser.new_page(viewport={"width": size[0], "height": size[1]})
        browser.close()


def test_the_results_tables_errors_and_skipped_columns_can_be_seen(
    report: Path, page_at: object, size: tuple[int, int]
) -> None:
    from playwright.sync_api import Page

    assert isinstance(page_at, Page)
    page_at.goto(report.as_uri())
    headers = page_at.locator("table.results th").all_inner_texts()
    assert "errors" in headers and "skipped" in headers and "success w/ errors" in headers
    assert page_at.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth") == 0
    for name in ("errors", "skipped", "success"):
        place = page_at.evaluate(PLACE, name)
        # within a pixel: a column's edge may fall between two
        assert place["boxLeft"] <= place["left"] and place["right"] <= place["boxRight"] + 1, place
        assert place["right"] <= place["window"] + 1, place
        if size == WIDE:  # the whole table in the window, nothing to scroll to
            assert not place["scrolls"], place
        else:  # scrolled to, it is not hidden under the task column kept in view
            assert place["scrolls"] and place["left"] >= place["stickyRight"] - 1, place
