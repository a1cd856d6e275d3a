"""The one-thread rule, watched from outside the timed child (``child_watch``).

The child here has no guard of its own, so what is refused is refused by the scorer's
watch alone: a thread that was not there when the setup ended, a process, or more CPU
time than the call took, while the threads the setup left stay allowed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from pytest_mlab.core.errors import InvalidSubmission, ScorerError
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec
from pytest_mlab.sandbox.isolation import available
from pytest_mlab.taskkit import child_watch
from pytest_mlab.taskkit.child_watch import ChildWatch
from pytest_mlab.taskkit.timed_child import ChildProgram, start_timed_child

ADAPTER = 'def call(fn, inputs, context):\n    return fn(inputs["x"])\n'
# The setup leaves two threads: one that waits for good, one that ends a moment later.
SETUP_THREADS = """
import threading, time
def setup(workspace):
    threading.Thread(target=threading.Event().wait, daemon=True).start()
    threading.Thread(target=time.sleep, args=(0.3,), daemon=True).start()
"""
THREAD_IN_CALL = """
import threading, time
def f(x):
    worker = threading.Thread(target=time.sleep, args=(0.3,))
    worker.start()
    worker.join()
    return x
"""
TWO_THREADS = "train.py ran 2 threads; it must use one."
Run = Callable[..., None]


@pytest.fixture(params=["none", "bwrap"])
def run(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Run]:
    """Time f of a train.py twice in a sandbox of the kind, watched as one thread."""
    if request.param == "bwrap" and not available("bwrap"):
        pytest.skip("bubblewrap is not available: apt-get install bubblewrap")
    boxes: list[LocalSandbox] = []

    def time_f(train_py: str, setup: str = "") -> None:
        folder = tmp_path / f"s{len(boxes)}"
        folder.mkdir()
        (folder / "train.py").write_text(textwrap.dedent(train_py))
        boxes.append(LocalSandbox(SandboxSpec(folder, isolation=request.param)))
        program = ChildProgram(function="f", adapter=setup + ADAPTER, one_thread=True)
        with start_timed_child(folder, boxes[-1], program, 120.0) as child:
            child.wait_until_ready(60.0)
            for name in ("call0", "call1"):
                _, out = child.call({"x": np.arange(3)}, name, 60.0)
                assert out.tolist() == [0, 1, 2]

    yield time_f
    for box in boxes:
        box.close()


def test_a_second_thread_during_a_call_is_seen_from_outside(run: Run) -> None:
    with pytest.raises(InvalidSubmission) as caught:
        run(THREAD_IN_CALL)
    assert str(caught.value) == TWO_THREADS


def test_a_thread_started_on_import_is_refused_at_the_first_call(run: Run) -> None:
    train_py = """
        import threading
        threading.Thread(target=threading.Event().wait, daemon=True).start()
        def f(x):
            return x
        """
    with pytest.raises(InvalidSubmission) as caught:
        run(train_py)
    assert str(caught.value) == TWO_THREADS


def test_the_threads_the_setup_left_are_allowed(run: Run) -> None:
    run("def f(x):\n    return x\n", SETUP_THREADS)


def test_a_thread_in_the_place_of_one_the_setup_left_is_refused(run: Run) -> None:
    # Once the setup's ending thread is gone, the count is back to what it was: a count
    # would let train.py's thread through.
    train_py = """
        import threading, time
        def f(x):
            while threading.active_count() > 2:
                time.sleep(0.01)
            worker = threading.Thread(target=time.sleep, args=(0.3,))
            worker.start()
            worker.join()
            return x
        """
    with pytest.raises(InvalidSubmission) as caught:
        run(train_py, SETUP_THREADS)
    assert str(caught.value) == TWO_THREADS


@pytest.mark.parametrize("wait", [True, False], ids=["reaped in the call", "left running"])
def test_another_process_is_refused(run: Run, wait: bool, tmp_path: Path) -> None:
    if wait and not _has_cgroup(tmp_path):
        pytest.skip("only the sandbox's own cgroup shows a process that came and went")
    train_py = f"""
        import os, time
        def f(x):
            pid = os.fork()
            if pid == 0:
                time.sleep(0.5)
                os._exit(0)
            if {wait}:
                os.waitpid(pid, 0)
            return x
        """
    with pytest.raises(InvalidSubmission) as caught:
        run(train_py)
    assert str(caught.value) == "train.py started another process, which this task does not allow."


def _has_cgroup(folder: Path) -> bool:
    box = LocalSandbox(SandboxSpec(folder, isolation="none"))
    box.close()
    return box.cgroup is not None


def test_a_child_the_scorer_cannot_see_is_an_infrastructure_error(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(child_watch, "PROC", str(tmp_path))
    with pytest.raises(ScorerError, match="cannot see the timed process in /proc"):
        run("def f(x):\n    return x\n")


BURN = """
import sys, threading, time
def burn():
    began = time.thread_time()
    while time.thread_time() - began < 0.2:
        pass
sys.stdin.readline()
worker = threading.Thread(target=burn)
worker.start()
worker.join()
print("done", flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def burner() -> Iterator[subprocess.Popen[str]]:
    """A process that, told to, burns 0.2 s of CPU time on a thread that then ends."""
    proc = subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    yield proc
    proc.kill()
    proc.wait()


def test_the_cpu_time_read_from_outside_counts_threads_that_ended(
    burner: subprocess.Popen[str],
) -> None:
    assert burner.stdin is not None and burner.stdout is not None
    watch = ChildWatch(burner.pid)
    before = watch._cpu()
    burner.stdin.write("go\n")
    burner.stdin.flush()
    assert burner.stdout.readline() == "done\n"
    assert watch._cpu() - before >= 0.2


def test_more_cpu_time_than_the_call_took_is_refused(
    burner: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # As two threads at once would be charged: a second of CPU time in a 50 ms call.
    watch = ChildWatch(burner.pid)
    clock = iter([10.0, 11.0])
    monkeypatch.setattr(watch, "_cpu", lambda: next(clock))
    with pytest.raises(InvalidSubmission) as caught, watch.call(lambda problem: None):
        time.sleep(0.05)
    assert str(caught.value).startswith("train.py ran more than one thread at once (1000.000 ms "
                                        "of CPU time in a ")
    assert str(caught.value).endswith(" ms call); it must use one.")
