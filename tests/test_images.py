"""The harness images as the docker sandbox's image: a lite task's starter, reference
solution and scorer run in each. CI builds the CPU one (scripts/build-images.sh); the CUDA
one, 6.4 GB, is built by hand (docs/cluster.md), and runs here on the CPU. The CPU one also
serves as a Ray head and worker, each in its container."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import loopback_ray
import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).parent.parent
CPU_IMAGE = "pytest-mlab:cpu"
IMAGES = {
    CPU_IMAGE: "bash scripts/build-images.sh",
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


# ``ray start --address=127.0.0.1:PORT`` refuses a head on the loopback interface unless
# told it may use the machine's outside address, where this head does not listen; so the
# worker joins as the command would, through the class it uses.
RAY_WORKER = """
import sys, time
from ray._private.node import Node
from ray._private.parameter import RayParams
Node(RayParams(node_ip_address="127.0.0.1", gcs_address=sys.argv[1], num_cpus=1,
               include_dashboard=False), head=False, shutdown_at_exit=True, spawn_reaper=True)
print("joined", flush=True)
time.sleep(3600)
"""


def _logged(container: Any, text: str, seconds: float = 120) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in container.logs().decode(errors="replace"):
            return True
        container.reload()
        if container.status == "exited":
            return False
        time.sleep(0.5)
    return False


def _cpu_image() -> Any:
    if not _image_present(CPU_IMAGE):
        pytest.skip(f"no {CPU_IMAGE} image in the Docker engine: {IMAGES[CPU_IMAGE]}")
    import docker

    return docker.from_env()


def test_where_bubblewrap_cannot_mount_proc_it_is_found_not_to_work() -> None:
    """With namespaces allowed (seccomp and AppArmor unconfined) but /proc masked, as
    Docker does by default, bwrap starts yet cannot mount /proc: every script failed, and
    the trial with it as if the agent's scripts had, while the probe said bwrap works."""
    output = _cpu_image().containers.run(CPU_IMAGE, [
        "python", "-c", "from pytest_mlab.sandbox.isolation import available;"
        "print(available('bwrap'))"], network_mode="none", remove=True,
        security_opt=["seccomp=unconfined", "apparmor=unconfined"])
    assert output.decode().strip() == "False", output


@pytest.mark.expensive  # Ray's dispatch is tested outside the image too
def test_the_cpu_image_runs_a_ray_cluster_of_head_and_worker() -> None:
    """The image's deployment: the controller in the head's container, the trial in a
    worker's, its sandbox given namespaces and /proc as docs/cluster.md says, each on this
    machine's loopback."""
    client = _cpu_image()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    common: dict[str, Any] = {"network_mode": "host", "environment": loopback_ray.VARIABLES,
                              "detach": True, "labels": {"pytest-mlab.test": "images"}}
    started = []
    try:
        head = client.containers.run(CPU_IMAGE, [
            "ray", "start", "--head", "--node-ip-address=127.0.0.1",
            f"--port={address.rpartition(':')[2]}", "--num-cpus=0", "--include-dashboard=false",
            "--disable-usage-stats", "--block"], **common)
        started.append(head)
        assert _logged(head, "Ray runtime started"), head.logs()[-3000:]
        # docker run --security-opt systempaths=unconfined, which the SDK does not spell.
        unconfined = client.api.create_host_config(
            network_mode="host", security_opt=["seccomp=unconfined", "apparmor=unconfined"])
        unconfined |= {"MaskedPaths": [], "ReadonlyPaths": []}
        made = client.api.create_container(
            CPU_IMAGE, ["python", "-c", RAY_WORKER, address], host_config=unconfined,
            environment=loopback_ray.VARIABLES, labels=common["labels"])
        worker = client.containers.get(made["Id"])
        started.append(worker)
        worker.start()
        assert _logged(worker, "joined"), worker.logs()[-3000:]
        code, output = head.exec_run(
            ["python", "-m", "pytest", "/work/tasks/lite/house-price", "--agent=oracle",
             f"--mlab-dispatch=ray:{address}", "-p", "no:cacheprovider", "-q",
             "--mlab-report-dir=/tmp/reports"], environment=loopback_ray.VARIABLES)
        text = output.decode(errors="replace")
        if code != 0 or "1 passed" not in text:  # what each step saw, for the failure
            _, steps = head.exec_run(["sh", "-c", "cat /tmp/reports/*/traces/*.jsonl"])
            text += "\n" + steps.decode(errors="replace")[-3000:]
        assert code == 0 and "1 passed" in text, text[-6000:]
        code, output = head.exec_run(["sh", "-c", "cat /tmp/reports/*/results.json"])
        (record,) = json.loads(output)["results"]
        assert record["isolation"] == "bwrap", record
    finally:
        for container in started:
            container.remove(force=True)
