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
