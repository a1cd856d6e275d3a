"""Collection imports neither torch nor litellm (nor the tasks' ML stack)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parent.parent

PROBE = """
import sys, pytest
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "tasks/"])
heavy = sorted(m for m in ("torch", "litellm", "sklearn", "pandas") if m in sys.modules)
print("HEAVY", heavy, "EXIT", int(code))
"""


def test_collecting_the_tasks_imports_no_heavy_library() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert "HEAVY [] EXIT 0" in result.stdout, result.stdout + result.stderr
    assert "tasks/lite/house-price/task.toml::house-price[baseline-t0]" in result.stdout
    assert "tasks/lite/vectorization/task.toml::vectorization[baseline-t0]" in result.stdout
