"""Issue 43's pages in a real headless Chromium, at a laptop's and a phone's width: runs
side by side like with like, the run list's rate per agent with its errors, k no larger
than the trials that ran, trials that say how they ended; no page runs off the window."""

from __future__ import annotations

from pathlib import Path

import pytest
from view_browser import CHROMIUM, NARROW, WIDE, Browse
from view_runs import agent_runs

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="chromium is absent: apt-get install chromium"),
    pytest.mark.parametrize("size", [WIDE, NARROW], ids=["1400", "390"]),
]
FOUR = "0.run-0,0.run-1,0.run-2,0.run-3"


def test_four_runs_side_by_side_test_each_agent_against_its_own_reference(
    tmp_path: Path, browse: Browse, size: tuple[int, int]
) -> None:
    agent_runs(tmp_path / "reports")
    b = browse(tmp_path / "reports", size)
    page = b.page
    page.goto(b.url + f"#/compare?runs={FOUR}")
    b.ready("compare")
    headers = page.locator("#comparison th").all_inner_texts()
    assert len(headers) == 5 and headers[1].startswith("(reference) run-0")
    oracle = page.locator("#comparison tr[data-agent=oracle] td")
    baseline = page.locator("#comparison tr[data-agent=baseline] td")
    for column in (2, 3, 4):
        assert "success +0%, p=1 (McNemar, paired)" in oracle.nth(column).inner_text()
        text = baseline.nth(column).inner_text()
        assert "success -33%, p=0.6 (Fisher)" in text
        assert "0/2 [0%, 66%] +1 error (0/3 w/ errors)" in text and "\n1 error\n" in text
    assert "\n0 errors\n" in baseline.nth(1).inner_text()
    # Wrapped inside the window at 1400 px; on a phone it scrolls in its own box.
    assert b.overflow() == 0
    if size == WIDE:
        box = page.locator("#comparison").bounding_box()
        assert box is not None and box["x"] + box["width"] <= size[0]
    b.shot(f"compare-four-{size[0]}")

    page.select_option("#reference", "0.run-1")
    b.ready("compare")
    assert page.locator("#comparison th").nth(2).inner_text().startswith("(reference) run-1")
    assert "p=" not in page.locator("#comparison tr[data-agent=baseline] td").nth(2).inner_text()


def test_the_run_list_shows_each_agents_rate_errors_and_duration(
    tmp_path: Path, browse: Browse, size: tuple[int, int]
) -> None:
    agent_runs(tmp_path / "reports", 2)
    b = browse(tmp_path / "reports", size)
    b.page.goto(b.url)
    b.ready("runs")
    row = b.page.locator("#runs tr[data-key='0.run-1']")
    assert row.locator(".group-rate").all_inner_texts() == [
        "baseline: 0/2 [0%, 66%] +1 error (0/3 w/ errors)", "oracle: 3/3 [44%, 100%]"]
    assert row.locator("td.errors").inner_text() == "1"
    assert row.locator("td.duration").inner_text() == "0.0s"
    assert "1 task: house-price" in row.inner_text()
    assert b.overflow() == 0
    b.shot(f"runs-{size[0]}")


def test_k_is_each_groups_trials_and_a_larger_k_says_it_was_cut(
    tmp_path: Path, browse: Browse, size: tuple[int, int]
) -> None:
    agent_runs(tmp_path / "reports", 2)
    b = browse(tmp_path / "reports", size)
    page = b.page
    page.goto(b.url + "#/run?run=0.run-1")
    b.ready("run")
    ks = page.locator("#groups td.k")
    assert ks.all_inner_texts() == ["2", "3"]  # baseline ran 2 (one errored), oracle 3
    page.fill("#k", "3")
    page.dispatch_event("#k", "change")
    assert ks.all_inner_texts() == ["2 (k=3 > 2 trials that ran)", "3"]
    assert page.locator("#groups td.k.clamped").count() == 1
    assert "-" not in page.locator("#groups tbody tr").nth(0).locator("td").nth(9).inner_text()
    assert b.overflow() == 0


def test_a_crash_and_a_bad_submission_read_apart_and_filter(
    tmp_path: Path, browse: Browse, size: tuple[int, int]
) -> None:
    agent_runs(tmp_path / "reports", 2)
    b = browse(tmp_path / "reports", size)
    page = b.page
    page.goto(b.url + "#/run?run=0.run-1")
    b.ready("run")
    headers = page.locator("#trials th").all_inner_texts()
    assert "message" in headers and "ended by" in headers
    from playwright.sync_api import expect

    message = page.locator("#trials td.message").last
    assert message.inner_text().startswith("ScorerError: the scorer crashed") and (
        message.inner_text().endswith("…"))
    assert message.get_attribute("title") == "ScorerError: the scorer crashed " + "x" * 200
    assert page.locator("#trials td.ended-by").all_inner_texts().count("final_answer") == 5
    page.select_option("#f-trial-outcome", "error")
    expect(page.locator("#trials tbody tr")).to_have_count(1)
    assert page.inner_text("#trials-shown") == "1 trial of 6 (filtered)"
    page.select_option("#f-trial-outcome", "")
    page.select_option("#f-trial-ended-by", "final_answer")
    expect(page.locator("#trials tbody tr")).to_have_count(5)
    assert page.inner_text("#trials-shown") == "5 trials of 6 (filtered)"
    assert b.overflow() == 0
    b.shot(f"trials-{size[0]}")


# Each element's box against the window, and whether any scrolls text out of its own box.
INSIDE = """(selector) => [...document.querySelectorAll(selector)].map((node) => {
  const r = node.getBoundingClientRect();
  return {text: node.innerText.slice(0, 40), left: r.left, right: r.right, width: r.width,
          cut: node.scrollWidth > node.clientWidth + 1};
})"""


def _in_window(found: list[dict[str, object]], width: int) -> None:
    assert found
    for place in found:
        assert place["width"] > 0 and not place["cut"], place  # shown, nothing hidden in it
        assert float(str(place["left"])) >= 0 and float(str(place["right"])) <= width + 1, place


def test_the_run_lists_success_errors_and_cost_are_in_the_window(
    tmp_path: Path, browse: Browse, size: tuple[int, int]
) -> None:
    agent_runs(tmp_path / "reports", 2)
    b = browse(tmp_path / "reports", size)
    b.page.goto(b.url)
    b.ready("runs")
    for cells in ("td.success", "td.errors", "td.cost"):
        _in_window(b.page.evaluate(INSIDE, f"#runs {cells}"), size[0])
    assert b.page.locator("#runs tr[data-key='0.run-1'] td.cost").inner_text() == "$0.0000"
    assert b.overflow() == 0


def test_three_runs_side_by_side_cut_no_word_at_the_windows_edge(
    tmp_path: Path, browse: Browse, size: tuple[int, int]
) -> None:
    agent_runs(tmp_path / "reports", 3)
    b = browse(tmp_path / "reports", size)
    b.page.goto(b.url + "#/compare?runs=0.run-0,0.run-1,0.run-2")
    b.ready("compare")
    cells = b.page.evaluate(INSIDE, "#comparison td")
    assert len(cells) == 2 * 4  # two agents, the group and three runs each
    _in_window(cells, size[0])
    _in_window(b.page.evaluate(INSIDE, ".scroll:has(> #comparison)"), size[0])
    if size == NARROW:  # no header row: each run's cell is named by its run
        names = b.page.locator("#comparison td.cell").evaluate_all(
            "(cells) => cells.map((c) => getComputedStyle(c, '::before').content)")
        assert all("run-" in name for name in names), names
    assert b.overflow() == 0
