"""The scored files are the ones the turn left. A process a script left running could go
on writing to the workspace after the Final Answer, while the submission was copied and
scored. Each is stopped when its step ends, and the observation says so; before the copy
every process of the trial is stopped, and checked for none left.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from conftest import SandboxFactory, run_script
from pytest_mlab.env.environment import Environment

# A daemon of its own session that writes to the workspace once its script has ended.
LATE_WRITER = r'''
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1.5)
        open("late.txt", "w").write("written after the step")
        os._exit(0)
    os._exit(0)
print("started a writer")
'''

WRITER = r'''
import time
count = 0
while True:
    count += 1
    with open("counter.txt", "w") as out:
        out.write(str(count))
    time.sleep(0.01)
'''


def test_a_process_left_running_is_stopped_with_its_step_and_the_agent_told(
    env: Environment,
) -> None:
    observation = run_script(env, LATE_WRITER)
    assert "started a writer" in observation
    assert "1 process it left running was stopped when it ended" in observation, observation
    time.sleep(3)
    assert not (env.workspace.root / "late.txt").exists()


def test_stop_all_leaves_no_process_that_writes_after_the_turn(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    sandbox = make_sandbox(tmp_path)
    assert hasattr(sandbox, "start")
    (tmp_path / "writer.py").write_text(WRITER)
    process = sandbox.start([sys.executable, "writer.py"])
    counter = tmp_path / "counter.txt"
    deadline = time.monotonic() + 60
    while not counter.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert counter.exists(), "the writer never started"
    sandbox.stop_all()
    stopped_at = counter.read_text()
    time.sleep(1)
    assert counter.read_text() == stopped_at
    for _ in range(50):
        if process.poll() is not None:
            return
        time.sleep(0.1)
    pytest.fail("the writer's process still runs after stop_all")
