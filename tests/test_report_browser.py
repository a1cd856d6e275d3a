"""The report opens in a real browser (headless Chromium) offline, runs its script without
errors and shows the run's numbers."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
from collections.abc import Callable
from html import unescape
from pathlib import Path

import pytest

from pytest_mlab.core.results import RunInfo, RunResults, TrialResult
from pytest_mlab.report import format as fmt
from pytest_mlab.report import model as report_model
from pytest_mlab.report.html import render
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


MEASURE = """<script>
(function () {
  var page = document.scrollingElement;
  var out = {window: window.innerWidth, client: page.clientWidth, scroll: page.scrollWidth,
             texts: 0, outside: [], svgs: 0};
  Array.prototype.forEach.call(document.querySelectorAll("svg"), function (svg) {
    var view = svg.viewBox.baseVal, toSvg = svg.getScreenCTM().inverse();
    out.svgs += 1;
    Array.prototype.forEach.call(svg.querySelectorAll("text"), function (text) {
      var box = text.getBBox(), m = toSvg.multiply(text.getScreenCTM()), xs = [], ys = [];
      [[0, 0], [1, 0], [0, 1], [1, 1]].forEach(function (c) {
        var p = svg.createSVGPoint();
        p.x = box.x + c[0] * box.width; p.y = box.y + c[1] * box.height;
        p = p.matrixTransform(m); xs.push(p.x); ys.push(p.y);
      });
      out.texts += 1;
      var edges = [Math.min.apply(null, xs), Math.min.apply(null, ys),
                   Math.max.apply(null, xs), Math.max.apply(null, ys)];
      if (edges[0] < view.x - 0.5 || edges[1] < view.y - 0.5 ||
          edges[2] > view.x + view.width + 0.5 || edges[3] > view.y + view.height + 0.5) {
        out.outside.push([text.textContent].concat(edges, [view.width, view.height]));
      }
    });
  });
  document.documentElement.setAttribute("data-measured", JSON.stringify(out));
})();
</script>"""
LONG_TASK = "parkinsons"
LITE = {  # task: (the task it mirrors, threshold, the oracle's improvement)
    "citation-graph": ("ogbn-arxiv", 0.1, 0.21), "contrails": ("identify-contrails", 0.25, 0.6),
    "essay-scoring": ("feedback", 0.1, 0.12), "fashion-cnn": ("cifar10", 0.31, 0.45),
    "house-price": (None, 0.1, 0.3), "llama-inference": (None, 3.0, 32.0),
    LONG_TASK: ("amp-parkinsons-disease-progression-prediction", 0.1, 0.14),
    "review-sentiment": ("imdb", 0.05, 0.08), "vectorization": (None, 0.9, 1.8),
} | {f"generated-task-with-a-long-name-{n}": (None, 0.1, 0.1 + n / 100) for n in range(30)}


def _wide_run(path: Path) -> Path:
    """A run whose charts and table are wider than any window: 39 tasks, three agents (one
    with an LLM), a +3200% outlier, long names and a long command line."""
    trials = []
    for task, (mirrors, threshold, best) in LITE.items():
        for agent, llm, share in (("baseline", None, 0.0), ("oracle", None, 1.0),
                                  ("react", "openai/gpt-4o-mini-2024-07-18", 0.4)):
            improvement = best * share
            trials.append(TrialResult(
                nodeid=f"tasks/lite/{task}/task.toml::{task}[{agent}-{llm}-trial0]",
                task=task, agent=agent, llm=llm, trial=0, metric="m", direction="higher",
                outcome="passed" if improvement >= threshold else "failed",
                success=improvement >= threshold, score=1 + improvement, baseline_mean=1.0,
                improvement=improvement, threshold=threshold, analogue_of=mirrors,
                message=f"{task} by {agent}"))
    run = RunInfo(run_id="wide", started="s", finished="f",
                  command=["pytest", "--mlab-task-filter=" + "x" * 400, *["tasks"] * 40],
                  machine="m", pytest_mlab_version="0")
    results = RunResults(run=run, results=trials)
    page = path / "report.html"
    html = render(build_report(results, path))
    page.write_text(html.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    return page


def test_at_1400_px_the_page_never_scrolls_sideways_and_no_chart_text_is_cut(
    tmp_path: Path,
) -> None:
    page = _wide_run(tmp_path)
    dom = _chromium(tmp_path, page, "--dump-dom", "--window-size=1400,2000")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console(dom.stderr) == []
    found = re.search(r'data-measured="([^"]*)"', dom.stdout)
    assert found, dom.stdout[:2000]
    measured = json.loads(unescape(found.group(1)))
    assert measured["window"] == 1400
    # The table (16+ columns) and the improvement chart (39 tasks) are wider than the window:
    # they scroll inside their own boxes, the page does not.
    assert measured["scroll"] <= measured["client"] <= 1400, measured
    assert measured["svgs"] == 2 and measured["texts"] > 100
    assert measured["outside"] == []
    # The symlog axis is what was drawn.
    assert "improvement (symmetric log)" in dom.stdout and "10,000%" in dom.stdout

    shot = tmp_path / "wide.png"
    done = _chromium(tmp_path, page, f"--screenshot={shot}", "--window-size=1400,2000")
    assert done.returncode == 0 and _png_size(shot) == (1400, 2000)


def test_a_report_past_its_budget_counts_its_listed_trials_in_its_filter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(report_model, "DETAIL_BUDGET", 1)
    page = _wide_run(tmp_path)
    dom = _chromium(tmp_path, page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console(dom.stderr) == []
    assert 'data-mlab-ready="yes"' in dom.stdout and 'data-mlab-errors="' not in dom.stdout
    trials = 3 * len(LITE)
    assert f"1 of the {trials} trials are shown in full" in dom.stdout
    assert dom.stdout.count('class="trial-row"') == trials - 1
    assert f"{trials} of {trials} trials shown" in dom.stdout
