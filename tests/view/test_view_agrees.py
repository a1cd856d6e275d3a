"""The browser and the terminal say the same of a run with errors: every figure the
browser's group table shares with the terminal's summary table reads the same, from the
JSON the page is drawn from to the page itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from view_browser import CHROMIUM, NARROW, WIDE, Browse
from view_runs import agent_runs

from pytest_mlab.core.results import RunResults
from pytest_mlab.report.browse.metrics import group_table
from pytest_mlab.report.columns import table
from pytest_mlab.report.rows import rows_of

SHARED = {
    # terminal column: the browser's group table's column
    "success": "success k/n [95%]", "95% CI": "success k/n [95%]", "k": "k",
    "pass@k": "pass@k", "pass^k": "pass^k", "errors": "errors",
    "success w/ errors": "success w/ errors", "pass@k w/ errors": "pass@k w/ errors",
    "mean improvement": "mean improvement", "norm. score": "mean normalised",
    "mean cost": "mean cost", "mean steps": "mean steps",
}


def _terminal(run: RunResults) -> dict[str, dict[str, str]]:
    header, *lines = table(rows_of(run.results), "terminal")
    return {line[header.index("agent")]: dict(zip(header, line, strict=True)) for line in lines}


def test_the_browsers_figures_are_the_terminals(tmp_path: Path) -> None:
    run = RunResults.read(agent_runs(tmp_path, 2)[1] / "results.json")
    rows = {row.agent: row for row in rows_of(run.results)}
    for group in group_table(run):
        row = rows[group["agent"]]
        assert (group["passed"], group["ran"], group["errors"], group["k"]) == (
            row.passed, row.ran, row.errors, row.pass_k)
        assert group["interval"] == pytest.approx([row.success_low, row.success_high])
        assert group["success_with_errors"] == row.success_with_errors
        (at_k,) = [a for a in group["attempts"] if a["k"] == group["k"]]
        assert (at_k["pass_at_k"], at_k["pass_hat_k"]) == (row.pass_at_k, row.pass_hat_k)
        assert at_k["pass_at_k_with_errors"] == row.pass_at_k_with_errors
        assert (group["mean_cost"], group["mean_steps"], group["mean_improvement"]) == (
            row.mean_cost, row.mean_steps, row.mean_improvement)
    assert rows["baseline"].errors == 1


@pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is absent: apt-get install chromium")
@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["1400", "390"])
def test_the_run_page_shows_the_terminals_figures(
    tmp_path: Path, browse: Browse, size: tuple[int, int]
) -> None:
    folders = agent_runs(tmp_path / "reports", 2)
    terminal = _terminal(RunResults.read(folders[1] / "results.json"))
    b = browse(tmp_path / "reports", size)
    b.page.goto(b.url + "#/run?run=0.run-1")
    b.ready("run")
    headers = b.page.locator("#groups th").all_inner_texts()
    for tr in b.page.locator("#groups tbody tr").all():
        cells = dict(zip(headers, tr.locator("td").all_inner_texts(), strict=True))
        figures = terminal[cells["agent"]]
        for ours, theirs in SHARED.items():
            if ours in figures:
                assert figures[ours] in cells[theirs], (ours, figures[ours], cells[theirs])
    assert "pass@k w/ errors" in terminal["baseline"] and b.overflow() == 0
    b.shot(f"agrees-{size[0]}")
