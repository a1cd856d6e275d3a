"""Each model call of a trial on its page: the endpoints that page them by step, clipped
and whole, and a real Chromium showing them folded under their steps, as text, found by
the search, with j/k between steps and [ ] between trials."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from view_browser import NARROW, WIDE, Browse
from view_calls import LONG, REPLY, calls_run
from view_runs import HOSTILE

from pytest_mlab.report.browse.call_pages import MAX_CALLS, MAX_TEXT
from pytest_mlab.report.browse.server import make_server

EXTRA = 120
"""Calls at step 3: more than one page holds."""


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    reports = tmp_path_factory.mktemp("calls") / "reports"
    calls_run(reports, extra_calls=EXTRA)
    server = make_server([reports], storage=reports / "no-storage")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def get(port: int, path: str) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, json.loads(body)


def test_calls_are_paged_by_step_clipped_and_one_can_be_had_whole(port: int) -> None:
    status, trial = get(port, "/api/trial?run=0.calls&i=0")
    assert status == 200 and trial["model_calls"] == 5 + EXTRA and trial["trials"] == 2
    status, first = get(port, "/api/calls?run=0.calls&i=0&first=0&last=1")
    assert status == 200 and first["total"] == 2 and first["next"] is None
    main, fast = first["calls"]
    assert (main["role"], main["model"], main["step"], main["call"]) == ("main", "main-model", 1, 1)
    assert main["messages"][0]["content"] == f"think about it {HOSTILE}"
    assert main["reply"]["text"] == REPLY and not main["clipped"]
    assert (main["tokens_in"], main["tokens_out"], main["cost"]) == (1000, 10, 0.001)
    assert fast["reply"]["tool_calls"] == [{"name": "list_files", "arguments": '{"dir_path": "."}'}]

    _, second = get(port, "/api/calls?run=0.calls&i=0&first=2&last=2")
    edit, long = second["calls"]
    assert edit["cached"] is True and long["clipped"] is True
    clipped = long["messages"][0]["content"]
    assert len(clipped) < MAX_TEXT + 100 and "characters elided" in clipped
    assert clipped.endswith(" the end")
    status, whole = get(port, f"/api/call?run=0.calls&i=0&n={long['index']}")
    assert status == 200 and whole["messages"][0]["content"] == "L" * LONG + " the end"
    assert whole["clipped"] is False

    # Step 3's calls take three pages; the last page, without ``last``, also holds the
    # call made after the last step.
    seen: list[dict[str, Any]] = []
    start: int | None = 0
    while start is not None:
        _, page = get(port, f"/api/calls?run=0.calls&i=0&first=3&start={start}")
        assert len(page["calls"]) <= MAX_CALLS and page["total"] == EXTRA + 1
        seen += page["calls"]
        start = page["next"]
    assert [c["step"] for c in seen] == [3] * EXTRA + [4]
    assert seen[-1]["error"] == "BudgetExceeded: token budget spent" and seen[-1]["reply"] is None


def test_a_trial_without_a_call_log_and_a_call_it_lacks(port: int) -> None:
    status, page = get(port, "/api/calls?run=0.calls&i=1&first=0")
    assert status == 200 and page == {"calls": [], "start": 0, "total": 0, "next": None}
    status, trial = get(port, "/api/trial?run=0.calls&i=1")
    assert status == 200 and trial["model_calls"] == 0
    status, answer = get(port, "/api/call?run=0.calls&i=0&n=100000")
    assert status == 404 and "no such model call" in answer["error"]
    status, _ = get(port, "/api/call?run=0.calls&i=1&n=0")
    assert status == 404


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
def test_calls_show_folded_as_text_searched_and_stepped_through(
    browse: Browse, tmp_path: Path, size: tuple[int, int]
) -> None:
    reports = tmp_path / "reports"
    calls_run(reports)
    b = browse(reports, size)
    page = b.page
    page.goto(b.url + "#/trial?run=0.calls&i=0")
    b.ready("trial")
    page.wait_for_selector("details.call >> nth=4", state="attached")
    calls = page.locator("details.call")
    assert calls.count() == 5
    assert page.locator("details.call[open]").count() == 0
    assert page.locator('.step[data-step="1"] details.call').count() == 2
    assert page.locator('.step[data-step="after"] details.call').count() == 1
    assert page.locator("#calls").count() == 0  # no second table of the same calls
    first = calls.nth(0)
    assert "#1 main main-model" in first.locator("summary").inner_text()
    assert "cached" in calls.nth(2).locator("summary").inner_text()
    assert not first.locator("pre").first.is_visible()
    first.locator("summary").click()
    assert page.locator("details.call[open]").count() == 1
    assert REPLY in first.inner_text() and HOSTILE in first.inner_text()
    assert page.locator("#app b, #app img, #app script").count() == 0
    assert page.evaluate("window.__pwned") is None
    b.shot(f"calls-{size[0]}")
    assert b.overflow() == 0

    # The long prompt is clipped until asked for whole.
    long = calls.nth(3)
    long.locator("summary").click()
    assert "characters elided" in long.inner_text()
    long.locator("button.whole-call").click()
    page.wait_for_selector("details.call >> nth=3 >> button.whole-call", state="detached")
    assert "characters elided" not in calls.nth(3).inner_text()

    page.fill("#trial-search", "fast-model")
    page.wait_for_selector("#search-said:has-text('match')")
    assert page.inner_text("#search-said") == "1 of 3 loaded steps match"
    visible = [c for c in range(5) if calls.nth(c).is_visible()]
    assert visible == [1]
    assert page.locator("details.call mark").count() >= 1
    page.fill("#trial-search", "")
    page.wait_for_selector("#search-said:empty", state="attached")
    assert page.locator("#steps .step:visible").count() == 4 and page.locator("mark").count() == 0

    page.locator("h1").click()
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.get_attribute("#steps .step.current", "data-step") == "2"
    page.keyboard.press("k")
    assert page.get_attribute("#steps .step.current", "data-step") == "1"
    page.keyboard.press("]")
    page.wait_for_selector("h1:has-text('trial 1')")
    b.ready("trial")
    page.keyboard.press("[")
    page.wait_for_selector("h1:has-text('trial 0')")
    b.ready("trial")
    assert page.evaluate("location.hash") == "#/trial?run=0.calls&i=0"
