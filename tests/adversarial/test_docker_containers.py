"""A trial's container belongs to it: another session's end never removes it (a Ray node
runs trials of one run side by side, each in a session of its own), and one removed from
outside while a script runs is the harness's error, never the agent's killed script."""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from docker_engine import require_docker_engine

from conftest import LIMITS
from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox.spec import SandboxSpec

SWEEP = "from pytest_mlab.sandbox.docker import remove_containers; remove_containers({!r}, {})"


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Any]:
    """A docker sandbox of a run of its own, made by this process (this session)."""
    require_docker_engine()
    from pytest_mlab.sandbox.docker import DockerSandbox

    sandbox = DockerSandbox(SandboxSpec(tmp_path, isolation="docker", resources=LIMITS,
                                        run_id=f"test-{uuid.uuid4().hex[:8]}"))
    yield sandbox
    sandbox.close()


def _sweep_from_another_session(run_id: str, own_only: bool) -> None:
    subprocess.run([sys.executable, "-c", SWEEP.format(run_id, own_only)], check=True,
                   timeout=120)


def _status(sandbox: Any) -> str:
    try:
        sandbox.container.reload()
    except Exception:
        return "removed"
    status: str = sandbox.container.status
    return status


def test_a_sibling_sessions_end_spares_the_trials_container(container: Any) -> None:
    run_id = container.container.labels["pytest-mlab.run"]
    _sweep_from_another_session(run_id, own_only=True)  # a node's session ends
    assert _status(container) == "running"
    assert container.run([sys.executable, "-c", "print('still here')"], 60).stdout.strip() == (
        "still here")
    _sweep_from_another_session(run_id, own_only=False)  # the controller's, after the run
    assert _status(container) == "removed"


def test_a_container_removed_while_a_script_runs_is_the_harness_error(container: Any) -> None:
    started = container.container.id
    remover = threading.Timer(2.0, lambda: container.client.containers.get(started).remove(
        force=True))
    remover.start()
    try:
        with pytest.raises(SandboxError, match=r"container .* went while .* ran"):
            container.run([sys.executable, "-c", "import time; time.sleep(60)"], 120)
    finally:
        remover.cancel()
