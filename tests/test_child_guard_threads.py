"""The timed child's guard counts the threads of a settled process: a thread the task's
setup left ending (a pool's worker after ``shutdown(wait=False)``, as model loading leaves
one now and then) once raised the limit, and when it ended train.py could run a thread of
its own unseen (llama-inference passed a second torch thread in one CI run). The count is
taken as an output is written (the scorer watches the calls themselves from outside:
tests/taskkit/test_child_watch.py)."""

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
    try:
        open("call0.out.npy")  # where the driver writes the call's output
    except OSError:
        pass
    print("not refused", flush=True)
""")


def test_a_thread_started_after_the_setups_pool_ended_is_refused() -> None:
    ran = subprocess.run([sys.executable, "-c", CHILD.format(repo=str(REPO))],
                         capture_output=True, text=True, timeout=60, check=False)
    assert ran.stdout == "error train.py ran 2 threads; it must use one\n", ran
    assert ran.returncode == 1


class _Thread:
    native_id = 7

    def __init__(self, clock: list[float], lasts: float) -> None:
        self.clock, self.lasts = clock, lasts
        self.started = clock[0]
        self.waited: list[float | None] = []

    def join(self, timeout: float | None = None) -> None:
        self.waited.append(timeout)
        self.clock[0] += min(self.lasts, timeout or 0.0)

    def is_alive(self) -> bool:
        return self.clock[0] < self.started + self.lasts


def _never_listed(tid: int) -> bool:
    return False


def _no_pause() -> None:
    raise AssertionError("nothing to wait for")


def test_the_wait_for_the_setups_threads_is_bounded_in_all() -> None:
    clock = [0.0]
    current, ending, stuck, late = (_Thread(clock, lasts) for lasts in (0, 1, 99, 99))
    child_guard._join_others(lambda: [current, ending, stuck, late], current,
                             lambda: clock[0], 5.0, _never_listed, _no_pause)
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
    child_guard._join_others(lambda: [current, dummy, ending], current, lambda: clock[0], 5.0,
                             _never_listed, _no_pause)
    assert ending.waited == [5.0]


def test_a_joined_thread_is_waited_for_until_proc_lists_it_no_more() -> None:
    clock = [0.0]
    current, ending = _Thread(clock, 0), _Thread(clock, 1)
    listed = [True, True, True, False]
    pauses = []

    def pause() -> None:
        pauses.append(clock[0])
        clock[0] += 0.001

    child_guard._join_others(lambda: [current, ending], current, lambda: clock[0], 5.0,
                             lambda tid: listed.pop(0), pause)
    assert len(pauses) == 3 and listed == []


def test_the_wait_for_an_os_thread_to_go_is_bounded_too() -> None:
    clock = [0.0]
    current, ending = _Thread(clock, 0), _Thread(clock, 1)

    def pause() -> None:
        clock[0] += 0.5

    child_guard._join_others(lambda: [current, ending], current, lambda: clock[0], 5.0,
                             lambda tid: True, pause)
    assert clock[0] == 5.0
