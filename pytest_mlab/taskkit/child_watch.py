"""The timing rules (one thread, no other process), watched from outside the timed child.

A check inside the child runs code train.py can reach: rebinding what it called
(``time.sleep``) stopped the guard's own sampling thread, which could as well have been
taken over to compute. What the kernel shows of a process in /proc, and of its cgroup,
train.py cannot change. So the scorer finds the child there, takes what its setup left
(its threads, the processes of its sandbox's cgroup) before train.py is imported, and
during each call samples it every few milliseconds from a thread of its own, and once more
as the call starts and ends: a thread that was not there or another process breaks the
rule. A thread that lives between two looks cannot hide its work: the process's CPU clock
counts every thread, ended ones too, and one thread cannot be charged more CPU time than
the call took.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator

from pytest_mlab.core.errors import InvalidSubmission, ScorerError

PROC = "/proc"
_CPUCLOCK_SCHED = 2
"""With the pid, makes the clock id of a process's CPU time (the kernel's
MAKE_PROCESS_CPUCLOCK; what clock_getcpuclockid returns)."""
CGROUPS = "/sys/fs/cgroup"
PERIOD = 0.002
"""Seconds between two looks at the child while a call runs."""
THREADS = "train.py ran {} threads; it must use one"
PARALLEL = ("train.py ran more than one thread at once ({:.3f} ms of CPU time in a "
            "{:.3f} ms call); it must use one")
CLOCK_RATES = 1e-4
"""How far the scheduler's clock and the raw wall clock may differ in rate (each is
calibrated from the same counter on its own; they agree to a few parts per million)."""
PROCESS = "train.py started another process, which this task does not allow"


def find_child(token: str) -> int:
    """The pid, as this machine sees it, of the child whose command line holds ``token``.

    The programs that wrap it (a launcher, bubblewrap) hold the child's command line in
    theirs, so the child's is the shortest.
    """
    found: dict[int, int] = {}
    for name in os.listdir(PROC):
        if name.isdigit():
            with contextlib.suppress(OSError):
                argv = _read(f"{PROC}/{name}/cmdline").split(b"\0")
                if token.encode() in argv:
                    found[int(name)] = len(argv)
    if not found:
        raise ScorerError("The scorer cannot see the timed process in /proc (a container of "
                          "another machine, or a /proc that hides it), so it cannot watch "
                          "its threads.")
    return min(found, key=found.__getitem__)


class ChildWatch:
    """One child's process, held against what its setup left (taken when this is made)."""

    def __init__(self, pid: int, period: float = PERIOD) -> None:
        self.pid = pid
        self.period = period
        self.verdict: str | None = None
        """The first rule the sampling saw broken."""
        self._group = _own_cgroup(pid)
        self.threads = self._threads()
        self.processes = self._processes()

    @contextlib.contextmanager
    def call(self, tell: Callable[[str], None]) -> Iterator[None]:
        """Watch one call (the block): InvalidSubmission at its start or end if a rule is
        broken; ``tell`` hears the first one the sampling sees, so as not to wait on."""
        self._refuse(self._look(whole=True))
        stop = threading.Event()
        sampler = threading.Thread(target=self._sample, args=(stop, tell), daemon=True)
        sampler.start()
        # The CPU time is read within the wall-clock interval: one thread's never exceeds it.
        # The wall clock is the raw one, which NTP does not slew, as the scheduler's is not.
        began = time.clock_gettime(time.CLOCK_MONOTONIC_RAW)
        cpu = self._cpu()
        try:
            yield
            spent = self._cpu() - cpu
            took = time.clock_gettime(time.CLOCK_MONOTONIC_RAW) - began
        finally:
            stop.set()
            sampler.join()
        parallel = (PARALLEL.format(spent * 1e3, took * 1e3)
                    if spent > took * (1 + CLOCK_RATES) else None)
        self._refuse(self.verdict or self._look(whole=True) or parallel)

    def _sample(self, stop: threading.Event, tell: Callable[[str], None]) -> None:
        while not stop.wait(self.period):
            if problem := self._look():
                self.verdict = problem
                tell(problem)
                return

    def _look(self, whole: bool = False) -> str | None:
        """The rule broken now, if any. Where the sandbox has no cgroup of its own,
        ``whole`` looks through every process of the machine for a child of this one."""
        if new := self._threads() - self.threads:
            return THREADS.format(1 + len(new))
        if self._group is not None:
            return PROCESS if self._processes() - self.processes else None
        return PROCESS if whole and self._has_child() else None

    def _refuse(self, problem: str | None) -> None:
        if problem is not None:
            raise InvalidSubmission(problem + ".")

    def _threads(self) -> frozenset[int]:
        # An ended child has none: its exit is the caller's to report.
        try:
            return frozenset(int(tid) for tid in os.listdir(f"{PROC}/{self.pid}/task"))
        except OSError:
            return frozenset()

    def _cpu(self) -> float:
        """The seconds of CPU time all the process's threads have used, ended ones too
        (its CPU clock, which any process may read; 0 once it has ended)."""
        try:
            return time.clock_gettime((~self.pid << 3) | _CPUCLOCK_SCHED)
        except OSError:
            return 0.0

    def _processes(self) -> frozenset[int]:
        if self._group is None:
            return frozenset()
        # A process leaves a cgroup only if moved by one allowed to write there: it holds
        # the sandbox's daemons too.
        try:
            return frozenset(int(pid) for pid in _read(self._group).split())
        except OSError:
            return frozenset()

    def _has_child(self) -> bool:
        for name in os.listdir(PROC):
            with contextlib.suppress(OSError, IndexError, ValueError):
                if name.isdigit() and int(
                        _read(f"{PROC}/{name}/stat").rpartition(b")")[2].split()[1]) == self.pid:
                    return True
        return False


def _own_cgroup(pid: int) -> str | None:
    """The cgroup.procs file of the group counting ``pid``'s processes, where that is its
    sandbox's own (not the scorer's, as without a trial cgroup) and readable."""
    theirs, ours = _pids_group(f"{PROC}/{pid}/cgroup"), _pids_group(f"{PROC}/self/cgroup")
    if theirs is None or theirs == ours:
        return None
    procs = f"{theirs.rstrip('/')}/cgroup.procs"
    return procs if os.access(procs, os.R_OK) else None


def _pids_group(cgroup_file: str) -> str | None:
    """The folder of the pids group (v1) or the unified group (v2) a /proc cgroup file
    names; None where it cannot be read."""
    try:
        lines = _read(cgroup_file).decode(errors="replace").splitlines()
    except OSError:
        return None
    fields = [line.split(":", 2) for line in lines if line.count(":") >= 2]
    for _, controllers, path in fields:
        if "pids" in controllers.split(","):
            return f"{CGROUPS}/pids{path}"
    for hierarchy, _, path in fields:
        if hierarchy == "0":
            for root in (CGROUPS, f"{CGROUPS}/unified"):
                if os.path.exists(f"{root}/cgroup.controllers"):
                    return f"{root}{path}"
    return None


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()
