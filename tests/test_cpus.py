"""Each trial holds its own cores: pinned, with its thread pools sized to match."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.sandbox.environ import thread_environ
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.spec import SandboxSpec
from pytest_mlab.trial.cpus import (
    cores_wanted,
    hold_machine,
    lease_cores,
    usable_cores,
    worker_slot,
)

PROBE = ("import os, torch; "
         "print(sorted(os.sched_getaffinity(0)), os.environ['OMP_NUM_THREADS'], "
         "torch.get_num_threads())")


def test_a_worker_knows_its_slot_and_its_share() -> None:
    assert worker_slot({}) == (0, 1)
    assert worker_slot({"PYTEST_XDIST_WORKER": "gw3", "PYTEST_XDIST_WORKER_COUNT": "4"}) == (3, 4)
    assert cores_wanted(None, 8, 4) == 2
    assert cores_wanted(None, 2, 4) == 1  # more workers than cores: one each, shared
    assert cores_wanted(6, 4, 1) == 4  # a task asking more than the machine runs on all


def test_two_workers_lease_disjoint_cores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pool = usable_cores()
    if len(pool) < 2:
        pytest.skip("needs two usable cores")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    with lease_cores(None, tmp_path) as first:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
        with lease_cores(None, tmp_path) as second:
            assert len(first) == len(second) == len(pool) // 2
            assert not set(first) & set(second)


def test_the_machine_is_held_once_running_leases_end_and_new_ones_wait_for_it(
    tmp_path: Path,
) -> None:
    events: list[str] = []
    running = lease_cores(1, tmp_path)
    running.__enter__()

    def measure() -> None:
        with hold_machine(1, tmp_path) as cores:
            events.append(f"held {len(cores)}")
            time.sleep(0.5)
            events.append("released")

    def trial() -> None:
        with lease_cores(1, tmp_path):
            events.append("leased")

    holder = threading.Thread(target=measure)
    holder.start()
    time.sleep(0.5)
    assert events == []  # the running trial's core is still held
    running.__exit__(None, None, None)
    while not events:
        time.sleep(0.01)
    newcomer = threading.Thread(target=trial)
    newcomer.start()
    holder.join(10)
    newcomer.join(10)
    assert events == ["held 1", "released", "leased"]


def test_a_worker_holding_cores_is_refused_the_machine_instead_of_waiting_forever(
    tmp_path: Path,
) -> None:
    with lease_cores(1, tmp_path), pytest.raises(InfrastructureError, match="wait for"):
        hold_machine(None, tmp_path).__enter__()
    with hold_machine(None, tmp_path), pytest.raises(InfrastructureError, match="wait for"):
        lease_cores(1, tmp_path).__enter__()
    with lease_cores(1, tmp_path) as cores:  # both were let go
        assert len(cores) == 1


def test_a_script_runs_on_its_cores_with_threads_to_match(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    core = usable_cores()[-1]
    spec = SandboxSpec(tmp_path, cpus=(core,), environment=thread_environ(1), isolation="none")
    sandbox = LocalSandbox(spec)
    try:
        result = sandbox.run([sys.executable, "-c", PROBE], timeout=120)
    finally:
        sandbox.close()
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == f"[{core}] 1 1"


def test_a_task_asking_one_cpu_gets_one(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    root = recorded("guess")
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace("[baseline]", "[resources]\ncpus = 1\n\n"
                                                                    "[baseline]"))
    with (root / "solution" / "train.py").open("a") as train:
        train.write("import os\nPath('cores.txt').write_text("
                    "f\"{len(os.sched_getaffinity(0))} {os.environ['OMP_NUM_THREADS']}\")\n")
    pytester.runpytest_subprocess(
        "tasks", "--agent=oracle", "--mlab-keep-workspaces=all", "--mlab-isolation=none",
        "--mlab-allow-weak-sandbox", *mlab_args,
    ).assert_outcomes(passed=1)
    workspace = Path(read_results()[0]["workspace"])
    assert (pytester.path / workspace / "cores.txt").read_text() == "1 1"
    assert os.cpu_count()  # the harness itself stays unpinned: only scripts are
