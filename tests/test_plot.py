"""python -m pytest_mlab plot: the paper's two figures from results.json files."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.cli.plot import PNG_HINT, main
from pytest_mlab.core.results import SCHEMA_VERSION, RunInfo, RunResults, TrialResult

SVG = "{http://www.w3.org/2000/svg}"


def _trial(task: str, agent: str, trial: int, improvement: float | None, **extra: Any
           ) -> TrialResult:
    success = improvement is not None and improvement >= 0.1
    return TrialResult(
        nodeid=f"tasks/{task}/task.toml::{task}[{agent}-t{trial}]", task=task, agent=agent,
        llm=None, trial=trial, metric="error", direction="lower",
        outcome="passed" if success else "failed", success=success,
        score=None if improvement is None else 1.0 - improvement, improvement=improvement,
        threshold=0.1, **extra,
    )


def _write(path: Path, trials: list[TrialResult]) -> Path:
    run = RunInfo(run_id=path.stem, started="s", finished="f", command=["pytest"],
                  machine="m", pytest_mlab_version="0")
    RunResults(run=run, results=trials).write(path)
    return path


@pytest.fixture
def two_runs(tmp_path: Path) -> list[Path]:
    """Two runs whose trials of house-price x react pool to 3 of 4 with 3 valid."""
    first = _write(tmp_path / "a.json", [
        _trial("house-price", "react", 0, 0.30), _trial("house-price", "react", 1, None),
        _trial("titanic", "react", 0, 0.05), _trial("titanic", "baseline", 0, 0.0),
    ])
    second = _write(tmp_path / "b.json", [
        _trial("house-price", "react", 2, 0.20), _trial("house-price", "react", 3, 0.40),
        _trial("house-price", "baseline", 0, -0.02),
    ])
    return [first, second]


def _bars(svg: Path) -> dict[str, str]:
    root = ET.parse(svg).getroot()
    return {title.text or "": "" for rect in root.iter(f"{SVG}rect")
            for title in rect.iter(f"{SVG}title")}


def test_figures_pool_the_runs_and_show_their_numbers(
    two_runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib", reason="PNG needs: pip install 'pytest-mlab[plot]'")
    out = tmp_path / "figures"
    assert main([*map(str, two_runs), "--out", str(out)]) == 0
    success = _bars(out / "success.svg")
    assert set(success) == {
        "house-price, baseline: 0/1 succeeded, 95% CI [0%, 79%]",
        "house-price, react: 3/4 succeeded, 95% CI [30%, 95%]",
        "titanic, baseline: 0/1 succeeded, 95% CI [0%, 79%]",
        "titanic, react: 0/1 succeeded, 95% CI [0%, 79%]",
    }
    improvement = _bars(out / "improvement.svg")
    assert "house-price, react: mean improvement +30.0% over 3 valid submissions" in improvement
    assert "house-price, baseline: mean improvement -2.0% over 1 valid submissions" in improvement
    assert len(improvement) == 4
    root = ET.parse(out / "improvement.svg").getroot()
    assert len(list(root.iter(f"{SVG}circle"))) == 6  # one dot per valid trial
    for name in ("success", "improvement"):
        data = (out / f"{name}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    printed = capsys.readouterr().out.splitlines()
    assert sorted(printed) == sorted(str(out / f"{n}.{e}") for n in ("success", "improvement")
                                     for e in ("svg", "png"))


def test_without_matplotlib_the_svgs_are_written_and_one_line_says_how_to_get_pngs(
    two_runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    for name in list(sys.modules):
        if name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    out = tmp_path / "figures"
    assert main([str(two_runs[0]), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["improvement.svg", "success.svg"]
    assert capsys.readouterr().out.splitlines()[-1] == PNG_HINT


def test_a_results_file_from_a_future_schema_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    future = tmp_path / "results.json"
    future.write_text(f'{{"schema_version": {SCHEMA_VERSION + 1}, "run": {{}}, "results": []}}')
    done = subprocess.run(
        [sys.executable, "-m", "pytest_mlab", "plot", str(future), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert re.fullmatch(
        rf"error: {re.escape(str(future))}: schema version {SCHEMA_VERSION + 1} is newer than "
        rf"pytest-mlab \S+ reads \(up to {SCHEMA_VERSION}\); upgrade pytest-mlab\n", done.stderr,
    )
    assert not (tmp_path / "o").exists()


def test_the_png_uses_the_svgs_axis_draws_thresholds_and_keeps_the_legend_outside() -> None:
    pytest.importorskip("matplotlib", reason="PNG needs: pip install 'pytest-mlab[plot]'")
    from pytest_mlab.report.figures import improvement_figure, scale_of, thresholds_of
    from pytest_mlab.report.png import draw
    from pytest_mlab.report.rows import rows_of

    trials = [_trial(f"task-{n}", "react", 0, 0.05 + 0.02 * n) for n in range(12)]
    trials += [_trial("llama-inference", "react", 0, 32.0).model_copy(update={"threshold": 3.0}),
               _trial("review-sentiment", "react", 0, 0.08).model_copy(update={"threshold": 0.05})]
    figure = improvement_figure(rows_of(trials), thresholds_of(trials))
    scale = scale_of(figure)
    canvas = draw(figure)
    canvas.canvas.draw()
    (axes,) = canvas.axes
    assert axes.get_yscale() == "symlog" and scale.kind == "symlog"
    assert axes.get_ylim() == (scale.low, scale.high)
    assert [t.get_text() for t in axes.get_yticklabels()] == ["0%", "10%", "100%", "1,000%",
                                                                "10,000%"]
    assert axes.get_ylabel() == "improvement (symmetric log)"
    from matplotlib.collections import LineCollection

    # Threshold lines (the only horizontal segments; whiskers are vertical): one per task at
    # its own threshold, as wide as its group of bars.
    segments = [s for c in axes.collections if isinstance(c, LineCollection)
                for s in c.get_segments() if s[0][1] == s[1][1] and s[0][0] != s[1][0]]
    assert sorted(s[0][1] for s in segments) == sorted([3.0, 0.05] + [0.1] * 12)
    assert all(s[1][0] - s[0][0] == pytest.approx(0.9) for s in segments)
    renderer = canvas.canvas.get_renderer()  # type: ignore[attr-defined]
    legend = axes.get_legend()
    assert legend is not None
    assert sorted(t.get_text() for t in legend.get_texts()) == ["react", "threshold (per task)"]
    # Outside the axes, right of the bars.
    assert legend.get_window_extent(renderer).x0 >= axes.get_window_extent(renderer).x1
