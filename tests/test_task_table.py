from __future__ import annotations

from pathlib import Path

from pytest_mlab.report.task_table import README, render

LITE = Path(__file__).parent.parent / "tasks" / "lite"


def test_the_lite_readme_is_what_the_kept_figures_give() -> None:
    assert (LITE / README).read_text(encoding="utf-8") == render(LITE)
