"""No process the harness starts writes bytecode into the installed package: the scorer's
worker and the sandbox launcher run with -I, which ignores PYTHONDONTWRITEBYTECODE, so
each is started with -B. A copy of the package, imported by a session that itself writes
no bytecode, must come out of a scored trial without a __pycache__ folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest_mlab

EXAMPLE = Path(__file__).parent / "examples" / "guess"


def test_a_scored_trial_writes_no_bytecode_into_the_package(tmp_path: Path) -> None:
    package = tmp_path / "site" / "pytest_mlab"
    shutil.copytree(Path(pytest_mlab.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(EXAMPLE, tmp_path / "tasks" / "guess")
    env = {**os.environ, "PYTHONPATH": str(package.parent), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tasks", "--agent=baseline",
         "--mlab-record-baseline=1", f"--mlab-cache-dir={tmp_path / 'cache'}",
         "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "-c", os.devnull,
         f"--rootdir={tmp_path}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # The session imported the copy (its trial was scored by it), not the installed one.
    assert f"{package}" in subprocess.run(
        [sys.executable, "-c", "import pytest_mlab; print(pytest_mlab.__file__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout
    assert "recorded" in done.stdout
    written = sorted(str(p.relative_to(package)) for p in package.rglob("__pycache__"))
    assert written == []
