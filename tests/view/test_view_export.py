"""The run browser exported as static files (``view --export DIR RUN...``), opened from
file:// in a real headless Chromium: the run table, a run, two runs side by side and a
trial show the records' figures with no console error; agent text stays text; nothing is
written outside DIR; a long trace is cut where the size cap says, with a note."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from view_browser import ARGS, CHROMIUM
from view_runs import HOSTILE, trial_result, two_runs, write_run, write_steps

from pytest_mlab.analysis.stats import wilson
from pytest_mlab.cli.view import main
from pytest_mlab.report.browse.export import export, file_name, request_key
from pytest_mlab.report.browse.runs import RunIndex

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="chromium is absent: apt-get install chromium"
)


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def page_of(tmp_path: Path) -> Iterator[Any]:
    """A Chromium page; after the test, it logged no error."""
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page
        browser.close()
    assert errors == []


def _ready(page: Any, view: str) -> None:
    page.wait_for_selector(f"#app[data-ready={view}]", state="attached", timeout=30_000)


def test_an_export_opens_from_file_with_the_runs_figures(
    tmp_path: Path, page_of: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_a, run_b = two_runs(tmp_path / "reports")
    monkeypatch.chdir(tmp_path)
    before = _files(tmp_path)
    out = tmp_path / "export"
    assert main(["--export", str(out), str(run_a), str(run_b / "results.json")]) == 0
    after = _files(tmp_path)
    assert {p: s for p, s in after.items() if not p.startswith(str(out))} == before
    page = page_of

    page.goto((out / "index.html").as_uri())
    _ready(page, "runs")
    assert page.locator("#runs tbody tr").count() == 2
    low, high = wilson(6, 6)
    oracle = page.locator("#runs tr:has-text('run-a') td.success").inner_text()
    assert oracle == f"oracle: 6/6 [{low * 100:.0f}%, {high * 100:.0f}%]"
    page.locator("input.pick[data-key$='run-a']").check()
    page.locator("input.pick[data-key$='run-b']").check()
    page.click("#compare")

    _ready(page, "compare")
    headers = page.locator("#comparison th").all_inner_texts()
    assert headers[1].startswith("(reference) run-a") and headers[2].startswith("run-b")
    baseline = page.locator("#comparison tr[data-agent=baseline]").first.locator("td")
    assert "success 1/3" in baseline.nth(2).inner_text()
    page.select_option("#reference", page.locator("#reference option").nth(1).get_attribute(
        "value"))
    _ready(page, "compare")
    assert page.locator("#comparison th").nth(2).inner_text().startswith("(reference) run-b")

    page.goto((out / "index.html").as_uri() + "#/")
    _ready(page, "runs")
    page.locator("#runs a:has-text('run-b')").click()
    _ready(page, "run")
    assert page.locator("#trials tbody tr").count() == 6
    assert page.locator("#groups tbody tr").count() == 2
    page.select_option("#f-trial-outcome", "error")
    page.wait_for_selector("#trials-shown:has-text('(filtered)')")
    assert page.locator("#trials tbody tr").count() == 1
    page.select_option("#f-trial-outcome", "")
    page.wait_for_selector("#trials-shown:not(:has-text('(filtered)'))")
    page.locator("#trials a", has_text="#0").click()

    _ready(page, "trial")
    assert page.inner_text("#facts tr[data-fact=outcome] td:nth-child(2)") == "passed"
    assert page.locator("#steps .step").count() == 4
    observation = page.locator("#steps .step .observation").first.inner_text()
    assert HOSTILE in observation  # the record's markup, shown as text
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator("#steps-cut").count() == 0


def test_an_export_cuts_a_long_trace_with_a_note(tmp_path: Path, page_of: Any) -> None:
    result = trial_result("house-price", "react", 0, success=True, improvement=0.2, steps=50)
    run = write_run(tmp_path / "reports", "long", [])
    write_steps(run, result, 50, snapshots=False)
    write_run(tmp_path / "reports", "long", [result])
    made = export(RunIndex([run]), tmp_path / "export", max_trace_bytes=1)
    assert made.cut == ["run long, trial 0: 20 of 50 steps"]
    key = request_key("steps", {"run": "0.long", "i": "0", "start": "20", "count": "20"})
    assert (tmp_path / "export" / file_name(key)).is_file()
    assert not (tmp_path / "export" / file_name(key.replace("start=20", "start=40"))).exists()

    page_of.goto((tmp_path / "export" / "index.html").as_uri() + "#/trial?run=0.long&i=0")
    _ready(page_of, "trial")
    assert page_of.locator("#steps .step").count() == 20
    page_of.click("#more-steps")
    page_of.wait_for_selector("#steps-cut")
    assert page_of.locator("#steps .step").count() == 20
    assert "first 20 of this trial's 50 steps" in page_of.inner_text("#steps-cut")
    assert page_of.inner_text("#steps-shown") == "showing 20 of 50 steps"
    assert page_of.locator("#more-steps").is_hidden()


def test_an_export_refuses_a_folder_with_files_in_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    run_a, _ = two_runs(tmp_path / "reports")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine\n")
    assert main(["--export", str(tmp_path / "out"), str(run_a)]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert main(["--export", str(tmp_path / "new"), str(tmp_path / "nothing-here")]) == 2
    assert os.listdir(tmp_path / "out") == ["notes.txt"] and not (tmp_path / "new").exists()
