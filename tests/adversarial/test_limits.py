"""Limits hold for the whole trial: the memory of all its processes together (files in
/tmp and /dev count), /tmp's size, a disk quota on the workspace, the number of
processes. Breaking one ends the script with a sentence naming the limit, and the trial
goes on to its verdict."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from docker_engine import docker_engine

from conftest import SandboxFactory, processes_with, run_script
from pytest_mlab.core.task import TrialLimits
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.environment import Environment
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.sandbox.resources import GIB, ResourceLimits

MEMORY = ("The script was stopped: its processes and its files in /tmp together used more "
          "than the trial's 0.5 GB of memory.")
PROCESSES = "The script was stopped: it tried to run more than the trial's 64 processes at once."
HOGS = """
import subprocess, sys
HOG = "import time; b = bytearray({mb} << 20); b[::4096] = b'1' * len(b[::4096]); time.sleep(5)"
hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range({n})]
print("EXITS", [hog.wait() for hog in hogs])
"""
FILL_TMP = """
written = 0
for n in range(20):
    with open(f"{folder}/fill{{n}}", "wb") as handle:
        handle.write(b"0" * (60 << 20))
    written += 60
print("WROTE", written, "MB")
"""
FILL_WORKSPACE = """
for n in range(60):
    with open(f"fill{n}", "wb") as handle:
        handle.write(b"0" * (10 << 20))
print("WROTE 600 MB")
"""
CLEAN_UP = "import glob, os\nfor path in glob.glob('fill*'):\n    os.remove(path)\nprint('clean')\n"
FLOOD = """
import subprocess
started = 0
for _ in range(1000):
    try:
        subprocess.Popen(["sleep", "30"])
        started += 1
    except OSError:
        break
print("STARTED", started)
"""


def test_memory_is_counted_for_all_processes_together(env: Environment) -> None:
    alone = run_script(env, HOGS.format(mb=200, n=1))
    assert "ran to completion" in alone and "EXITS [0]" in alone, alone
    together = run_script(env, HOGS.format(mb=200, n=3))
    assert together.startswith(MEMORY), together
    assert "EXITS [0, 0, 0]" not in together
    assert "ran to completion" in run_script(env, "print('on')", "next.py")


def test_memory_past_the_limit_is_refused(env: Environment) -> None:
    observation = run_script(env, "b = bytearray(4 << 30)\nprint('ALLOCATED', len(b))\n")
    assert "ALLOCATED" not in observation
    assert observation.startswith(MEMORY), observation


@pytest.mark.parametrize("folder", ["/tmp", "/dev/shm"])
def test_tmp_is_capped_and_counted(env: Environment, folder: str) -> None:
    observation = run_script(env, FILL_TMP.format(folder=folder))
    assert "WROTE" not in observation
    # The memory limit counts the files (bubblewrap's /tmp and /dev, docker's /tmp), or
    # the folder is full first (docker's /dev/shm).
    assert (observation.startswith(MEMORY)
            or "No space left on device" in observation), observation
    cleared = run_script(env, f"import glob, os\nfor p in glob.glob('{folder}/fill*'):\n"
                              "    os.remove(p)\nprint('on')\n", "next.py")
    assert "ran to completion" in cleared


def test_the_workspace_has_a_disk_quota(env: Environment) -> None:
    observation = run_script(env, FILL_WORKSPACE)
    stopped = re.match(r"The script was stopped: the workspace grew by ([\d.]+) GB, more than "
                       r"the trial's disk quota of 0.1 GB; delete files to go on\.", observation)
    assert stopped is not None, observation
    # Checked every second: a script may write up to a second's worth past the quota.
    assert 0.1 < float(stopped[1]) < 0.6
    assert run_script(env, "print('on')", "next.py").startswith("The script was stopped: the "
                                                               "workspace grew by")
    assert "ran to completion" in run_script(env, CLEAN_UP, "clean.py")


def test_a_process_flood_is_capped(env: Environment) -> None:
    for name in ("flood.py", "again.py"):
        observation = run_script(env, FLOOD, name)
        assert observation.startswith(PROCESSES), observation
        assert 0 < int(observation.split("STARTED")[-1].split()[0]) < 64, observation
    assert "ran to completion" in run_script(env, "print('on')", "next.py")


ORPHANS = """
import os, time
for _ in range(10):
    if os.fork() == 0:
        if os.fork() == 0:
            time.sleep(60)
        os._exit(0)
    os.wait()
print("ORPHANED 10")
"""


def test_orphans_of_killed_scripts_do_not_use_up_the_process_slots(env: Environment) -> None:
    # 10 orphans a script, 64 processes a trial: orphans left as zombies would use the
    # slots up by the seventh script.
    for n in range(8):
        observation = run_script(env, ORPHANS, f"orphans{n}.py")
        assert "ran to completion" in observation and "ORPHANED 10" in observation, (n, observation)


def test_sleeping_past_the_timeout_is_stopped(
    world: tuple[Workspace, PreparedData], make_sandbox: SandboxFactory
) -> None:
    workspace, _ = world
    env = Environment(
        research_problem="attack", entry="train.py", workspace=workspace,
        sandbox=make_sandbox(workspace.root, ResourceLimits(memory_bytes=GIB // 2)),
        limits=TrialLimits(max_steps=10, max_time=600, script_timeout=2),
    )
    observation = run_script(env, "import time\ntime.sleep(120)\nprint('WOKE')\n")
    assert observation.startswith("The script was stopped after 2 seconds"), observation
    assert "WOKE" not in observation


@pytest.mark.slow
def test_a_trial_that_breaks_every_limit_still_gets_its_verdict(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], kind_args: list[str],
    sandbox_kind: str, mlab_args: list[str], monkeypatch: pytest.MonkeyPatch,
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    task_tree("probe")
    scripts = [HOGS.format(mb=200, n=3), FILL_TMP.format(folder="/tmp"), FILL_WORKSPACE,
               CLEAN_UP, FLOOD, "import runpy\nrunpy.run_path('train.py', run_name='__main__')\n"]
    (pytester.path / "scripts.json").write_text(json.dumps(scripts))
    monkeypatch.setenv("MLAB_TEST_SCRIPTS", str(pytester.path / "scripts.json"))
    monkeypatch.setenv("MLAB_TEST_LOG", str(pytester.path / "log.jsonl"))
    run = pytester.runpytest("tasks", "--agent=scripted_agents:ScriptsAgent", *kind_args,
                             *mlab_args)
    run.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["isolation"] == sandbox_kind and record["score"] is not None
    assert re.fullmatch(r"probe: mae=[\d.]+ is 0\.0% better than baseline [\d.]+ \(needed "
                        r"10%\)", str(record["message"])), record["message"]
    log = [json.loads(line) for line in (pytester.path / "log.jsonl").read_text().splitlines()]
    memory, tmp, disk, clean, flood, starter = log
    assert memory.startswith(MEMORY) and tmp.startswith(MEMORY)
    assert disk.startswith("The script was stopped: the workspace grew by")
    assert "ran to completion" in clean and "ran to completion" in starter
    assert flood.startswith("The script was stopped: it tried to run more than the trial's "
                            "256 processes at once.") and "STARTED" in flood


def test_the_harness_survives_an_attacking_trial_and_leaves_no_container(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], kind_args: list[str],
    sandbox_kind: str, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    pytester.runpytest(
        "tasks", "--agent=oracle", "--agent=scripted_agents:AttackingAgent", *kind_args,
        *mlab_args,
    ).assert_outcomes(passed=1, failed=1)
    records = {str(r["agent"]): r for r in read_results()}
    assert {r["isolation"] for r in records.values()} == {sandbox_kind}
    attacker = records["scripted_agents:AttackingAgent"]
    assert attacker["score"] is not None and attacker["ended_by"] == "final answer"
    assert str(attacker["message"]).startswith("guess: error=")
    if sandbox_kind == "docker" and docker_engine():
        import docker

        run_id = Path(str(records["oracle"]["trace"])).parent.parent.name
        left = docker.from_env().containers.list(
            all=True, filters={"label": f"pytest-mlab.run={run_id}"})
        assert left == []


def test_a_stopped_trial_ends_its_running_script_and_its_children(env: Environment) -> None:
    marker = f"stopped-{uuid.uuid4().hex}"
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', {marker!r}])\n"
        "print('started', flush=True)\ntime.sleep(120)\n"
    )
    stop = threading.Timer(2, env.control.stop, ("the test stopped the trial", "Timeout"))
    stop.start()
    started = time.monotonic()
    observation = run_script(env, code)
    stop.join()
    # The script would sleep 120 s; the stop ends it (and its child) within seconds.
    assert time.monotonic() - started < 60
    assert "The script was stopped: the test stopped the trial." in observation, observation
    assert processes_with(marker) == []
