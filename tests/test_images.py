"""The harness image (images/Dockerfile, built by scripts/build-images.sh) as the docker
sandbox's image: a lite task's starter, reference solution and scorer run in it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).parent.parent
IMAGE = "pytest-mlab:cpu"


def _image_present() -> bool:
    try:
        import docker

        docker.from_env().images.get(IMAGE)
    except Exception:
        return False
    return True


def test_a_lite_task_runs_in_the_harness_image(tmp_path: Path) -> None:
    if not _image_present():
        pytest.skip(f"no {IMAGE} image in the Docker engine: bash scripts/build-images.sh")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "tasks/lite/house-price", "--agent=oracle",
         "--mlab-sandbox=docker", f"--mlab-docker-image={IMAGE}", "-p", "no:cacheprovider",
         f"--mlab-cache-dir={tmp_path / 'cache'}", f"--mlab-report-dir={tmp_path / 'reports'}",
         "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=900,
        env=os.environ | {"PYTEST_ADDOPTS": ""},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    (results,) = tmp_path.glob("reports/*/results.json")
    (record,) = json.loads(results.read_text())["results"]
    assert record["outcome"] == "passed" and record["isolation"] == "docker", record
