"""Collection imports neither torch nor litellm (nor the tasks' ML stack, nor numpy, the
report's jinja2 or Ray): see also test_startup_imports.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent

PROBE = """
import sys, pytest
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "tasks/", *sys.argv[1:]])
heavy = sorted(m for m in ("torch", "litellm", "sklearn", "pandas", "scipy", "numpy", "jinja2",
                            "ray", "docker", "matplotlib") if m in sys.modules)
print("HEAVY", heavy, "EXIT", int(code))
"""


# A Ray controller looks Ray up, and imports it only to submit trials.
@pytest.mark.parametrize("args", [[], ["--mlab-dispatch=ray:127.0.0.1:9"]], ids=["local", "ray"])
def test_collecting_the_tasks_imports_no_heavy_library(args: list[str]) -> None:
    if args:
        pytest.importorskip("ray")
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=REPO, capture_output=True, text=True,
        timeout=120,
    )
    assert "HEAVY [] EXIT 0" in result.stdout, result.stdout + result.stderr
    assert "tasks/lite/house-price/task.toml::house-price[baseline-t0]" in result.stdout
    assert "tasks/lite/vectorization/task.toml::vectorization[baseline-t0]" in result.stdout
