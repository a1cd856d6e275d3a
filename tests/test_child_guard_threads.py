"""The timed child's guard counts the threads of a settled process: a thread the task's
setup left ending (a pool's worker after ``shutdown(wait=False)``, as model loading leaves
one now and then) once raised the limit, and when it ended train.py could run a thread of
its own unseen (llama-inference passed a second torch thread in one CI run)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from pytest_mlab.taskkit import child_guard

REPO = Path(__file__).parent.parent

CHILD = textwrap.dedent("""
    import _thread, sys, time
    from concurrent.futures import ThreadPoolExecutor
    sys.path.insert(0, {repo!r})
    from pytest_mlab.taskkit import child_guard

    pool = ThreadPoolExecutor(1)
    pool.submit(time.sleep, 0.5)
    pool.shutdown(wait=False)  # its worker ends half a second from now
    child_guard.install(1, allowed=None, denied=())
    time.sleep(1.0)
    _thread.start_new_thread(time.sleep, (5,))  # train.py's second thread
    time.sleep(1.0)
    print("not refused", flush=True)
""")


def test_a_thread_started_after_the_setups_pool_ended_is_refused() -> None:
    ran = subprocess.run([sys.executable, "-c", CHILD.format(repo=str(REPO))],
                         capture_output=True, text=True, timeout=60, check=False)
    assert ran.stdout == "error train.py ran 2 threads; it must use one\n", ran
    assert ran.returncode == 1


class _Thread:
    def __init__(self, clock: list[float], lasts: float) -> None:
        self.clock, self.lasts = clock, lasts
        self.waited: list[float | None] = []

    def join(self, timeout: float | None = None) -> None:
        self.waited.append(timeout)
        self.clock[0] += min(self.lasts, timeout or 0.0)


def test_the_wait_for_the_setups_threads_is_bounded_in_all() -> None:
    clock = [0.0]
    current, ending, stuck, late = (_Thread(clock, lasts) for lasts in (0, 1, 99, 99))
    child_guard._join_others(lambda: [current, ending, stuck, late], current,
                             lambda: clock[0], 5.0)
    assert current.waited == [] and ending.waited == [5.0]
    assert stuck.waited == [4.0] and late.waited == [0.0]
    assert clock[0] == 5.0


class _DummyThread(_Thread):
    """As threading's: a thread started outside Python, which cannot be joined."""

    def join(self, timeout: float | None = None) -> None:
        raise AssertionError("cannot join a dummy thread")


def test_a_thread_that_cannot_be_joined_is_left_counted() -> None:
    clock = [0.0]
    current, dummy, ending = _Thread(clock, 0), _DummyThread(clock, 0), _Thread(clock, 1)
    child_guard._join_others(lambda: [current, dummy, ending], current, lambda: clock[0], 5.0)
    assert ending.waited == [5.0]
