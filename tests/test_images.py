"""The harness images as the docker sandbox's image: a lite task's starter, reference
solution and scorer run in each. CI builds the CPU one (scripts/build-images.sh); the CUDA
one, 6.4 GB, is built by hand (docs/cluster.md), and runs here on the CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).parent.parent
IMAGES = {
    "pytest-mlab:cpu": "bash scripts/build-images.sh",
    "pytest-mlab:cuda": "bash scripts/build-images.sh pytest-mlab:cuda images/Dockerfile.cuda",
}


def _image_present(image: str) -> bool:
    try:
        import docker

        docker.from_env().images.get(image)
    except Exception:
        return False
    return True


@pytest.mark.parametrize("image", IMAGES)
def test_a_lite_task_runs_in_the_harness_image(image: str, tmp_path: Path) -> None:
    if not _image_present(image):
        pytest.skip(f"no {image} image in the Docker engine: {IMAGES[image]}")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "tasks/lite/house-price", "--agent=oracle",
         "--mlab-sandbox=docker", f"--mlab-docker-image={image}", "-p", "no:cacheprovider",
         f"--mlab-cache-dir={tmp_path / 'cache'}", f"--mlab-report-dir={tmp_path / 'reports'}",
         "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=900,
        env=os.environ | {"PYTEST_ADDOPTS": ""},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    (results,) = tmp_path.glob("reports/*/results.json")
    (record,) = json.loads(results.read_text())["results"]
    assert record["outcome"] == "passed" and record["isolation"] == "docker", record
