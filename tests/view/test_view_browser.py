"""The run browser in a real headless Chromium (Playwright): clicked through from the run
table to two trials side by side over real runs, with what each page shows checked against
the records, no console error, no request leaving 127.0.0.1, agent text shown as text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from view_browser import CHROMIUM, Browser
from view_runs import BIG_STEPS, HOSTILE, big_run, trial_result, two_runs, write_run

from pytest_mlab.analysis.stats import wilson
from pytest_mlab.core.results import RunResults
from pytest_mlab.report.browse.server import PAGE

MANY = 250
"""Trials in a run whose trial list takes two pages."""

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="chromium is absent: apt-get install chromium"
)


def _interval(passed: int, ran: int) -> str:
    low, high = wilson(passed, ran)
    return f"{passed}/{ran} [{low * 100:.0f}%, {high * 100:.0f}%]"


@pytest.mark.slow
def test_click_from_the_run_table_to_two_trials_side_by_side(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    browse: Callable[[Path], Browser],
) -> None:
    recorded("guess")
    pytester.runpytest("tasks", "--agent=oracle", "--mlab-trials=2", "--mlab-score-steps=1",
                       *mlab_args).assert_outcomes(passed=2)
    pytester.runpytest("tasks", "--agent=oracle", "--agent=scripted_agents:GarbageAgent",
                       "--agent=scripted_agents:CrashingAgent", "--mlab-trials=2",
                       *mlab_args).assert_outcomes(passed=2, failed=4)
    runs = [RunResults.read(p) for p in (pytester.path / "reports").glob("*/results.json")]
    (oracle,) = [r for r in runs if len({t.agent for t in r.results}) == 1]
    (other,) = [r for r in runs if r is not oracle]
    b = browse(pytester.path / "reports")
    page = b.page

    page.goto(b.url)
    b.ready("runs")
    rows = page.locator("#runs tbody tr")
    assert rows.count() == 2
    oracle_row = page.locator(f"#runs tr:has-text('{oracle.run.run_id}')")
    assert f"oracle: {_interval(2, 2)}" in oracle_row.locator("td.success").inner_text()
    # One rate per agent, never the three pooled.
    lines = page.locator(f"#runs tr:has-text('{other.run.run_id}') td.success .group-rate")
    assert lines.all_inner_texts() == [
        f"oracle: {_interval(2, 2)}", f"scripted_agents:CrashingAgent: {_interval(0, 2)}",
        f"scripted_agents:GarbageAgent: {_interval(0, 2)}"]
    b.shot("1-runs")

    page.select_option("#f-agent", "oracle")
    assert rows.count() == 2 and page.inner_text("#shown") == "2 of 2 runs"
    page.select_option("#f-agent", "scripted_agents:GarbageAgent")
    assert rows.count() == 1 and page.inner_text("#shown") == "1 of 2 runs"
    page.select_option("#f-agent", "")
    page.fill("#search", "no-such-task")
    assert rows.count() == 0
    page.fill("#search", "guess")
    page.select_option("#f-outcome", "failed")
    assert rows.count() == 1 and other.run.run_id in rows.inner_text()
    page.select_option("#f-outcome", "")
    # The first checked is the reference the others are tested against.
    page.locator(f"input.pick[data-key$='{oracle.run.run_id}']").check()
    assert page.is_disabled("#compare")
    page.locator(f"input.pick[data-key$='{other.run.run_id}']").check()
    assert page.inner_text("#compare") == "Compare selected (2)"
    page.click("#compare")

    b.ready("compare")
    headers = page.locator("#comparison th").all_inner_texts()
    assert headers[1].startswith(f"(reference) {oracle.run.run_id}")
    assert headers[2].startswith(other.run.run_id)
    row = page.locator("#comparison tr[data-agent=oracle] td")
    assert f"success {_interval(2, 2)}" in row.nth(1).inner_text()
    # Oracle against oracle: both trials passed in both runs, with the same trial numbers.
    assert "success +0%, p=1 (McNemar, paired)" in row.nth(2).inner_text()
    assert "pass@2 100%, pass^2 100%" in row.nth(1).inner_text()
    crashing = page.locator("#comparison tr[data-agent='scripted_agents:CrashingAgent'] td")
    assert crashing.nth(1).inner_text().startswith(f"not in {oracle.run.run_id}")
    assert f"not tested: the reference run {oracle.run.run_id} did not run" in (
        crashing.nth(2).inner_text())
    assert "pass@2 0%, pass^2 0%" in crashing.nth(2).inner_text()
    b.shot("2-compare")

    crashing.nth(2).locator("a", has_text="t0").click()
    b.ready("trial")
    crashed = next(r for r in other.results if r.agent.endswith("CrashingAgent") and r.trial == 0)
    assert page.inner_text("#facts tr[data-fact=message] td:nth-child(2)") == crashed.message
    assert "KeyError: 'plan'" in page.inner_text("#traceback")
    assert page.locator("#steps .step").count() == crashed.steps
    assert "List Files" in page.inner_text("#steps .step h3")

    page.go_back()
    b.ready("compare")
    page.locator("#comparison tr[data-agent=oracle] td").nth(1).locator(
        "a", has_text="t0").click()
    b.ready("trial")
    passed = next(r for r in oracle.results if r.trial == 0)
    scored = [s for s in passed.step_scores if s.score is not None]
    assert scored and page.locator("#score-chart circle").count() == len(scored)
    assert page.locator("#threshold-line").count() == 1
    assert page.inner_text("#facts tr[data-fact=outcome] td:nth-child(2)") == "passed"
    b.shot("3-trial")

    page.click("#pair")
    b.ready("pair")
    steps = max(r.steps for r in oracle.results)
    assert page.locator("#pair-steps > *").count() == 2 * steps
    assert "oracle trial 0" in page.inner_text("#pair-head")
    assert "oracle trial 1" in page.inner_text("#pair-head")
    b.shot("4-pair")


def test_a_big_run_and_a_ten_megabyte_trace_open_a_page_at_a_time(
    tmp_path: Path, browse: Callable[[Path], Browser],
) -> None:
    big_run(tmp_path / "reports")
    two_runs(tmp_path / "reports")
    write_run(tmp_path / "reports", "many", [
        trial_result(f"task-{n % 7}", "baseline", n // 7, success=False, improvement=0.0)
        for n in range(MANY)])
    write_run(tmp_path / "reports", "empty", [])  # a run that selected no trial
    b = browse(tmp_path / "reports")
    page = b.page
    page.goto(b.url)
    b.ready("runs")
    assert page.locator("#runs tbody tr").count() == 5
    empty = page.inner_text("#runs tr[data-key='0.empty'] td.success")
    assert empty == "no trials" and "0/0" not in empty
    page.goto(b.url + "#/run?run=0.big")
    b.ready("run")
    assert page.locator("#trials tbody tr").count() == 120
    assert page.locator("#groups tbody tr").count() == 4
    assert page.locator("#agents tbody tr").count() == 1
    assert "react" in page.inner_text("#agents")
    page.goto(b.url + "#/run?run=0.many")
    b.ready("run")
    assert page.locator("#trials tbody tr").count() == PAGE
    page.click("#more-trials")
    page.wait_for_selector(f"#trials tbody tr >> nth={MANY - 1}")
    assert page.locator("#trials tbody tr").count() == MANY and page.is_hidden("#more-trials")

    page.goto(b.url + "#/trial?run=0.big&i=0")
    b.ready("trial")
    assert page.locator("#steps .step").count() == 20
    assert page.inner_text("#steps-shown") == f"showing 20 of {BIG_STEPS} steps"
    page.click("#more-steps")
    page.wait_for_selector("#steps .step >> nth=39")
    assert page.locator("#steps .step").count() == 40

    page.goto(b.url + "#/trial?run=0.run-b&i=0")
    b.ready("trial")
    assert page.locator("#calls tbody tr").count() == 2
    assert "gpt-test" in page.inner_text("#calls") and "$0.0200" in page.inner_text("#calls")

    # Agent text with markup in observations and tracebacks is shown, never run.
    page.goto(b.url + "#/trial?run=0.run-b&i=5")
    b.ready("trial")
    assert HOSTILE in page.inner_text("#traceback")
    assert page.inner_text("#harness-error") == "ScorerError: titanic: baseline trial 2"
    assert HOSTILE in page.inner_text("#steps .observation >> nth=0")
    assert page.locator("#app img, #app script").count() == 0
    assert page.evaluate("window.__pwned") is None


def test_where_trials_errored_each_rate_says_it_with_the_errors_counted(
    tmp_path: Path, browse: Callable[[Path], Browser],
) -> None:
    """Issue 42: a rate over the trials that ran is shown with its errors beside it, counted
    as failed trials, in the run list and in the run's own group table."""
    two_runs(tmp_path / "reports")
    b = browse(tmp_path / "reports")
    b.page.goto(b.url)
    b.ready("runs")
    rows = b.page.locator("#runs tbody tr").all_inner_texts()
    errored = [row for row in rows if "+1 error" in row]
    assert len(errored) == 1 and "1/5" in errored[0] and "+1 error (1/6 w/ errors)" in errored[0]
    assert not [row for row in rows if "error" in row and row not in errored]
