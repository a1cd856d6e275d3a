"""A neighbour cannot move a per-session baseline (issue 39): while the unmodified
starter is timed the machine is held, so no other trial runs beside it, and a worker
that holds cores never waits for the machine (the run finishes)."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock, Timeout

from pytest_mlab.core.machine import machine_id
from pytest_mlab.trial.cpus import lease_cores, usable_cores

STARTER = """
import time
from pathlib import Path

start = time.time()
time.sleep({pause})
with open({log!r}, "a") as log:
    log.write(f"{{start}} {{time.time()}}\\n")
Path("submission.txt").write_text("{value}\\n")
"""
"""A script that logs when it ran, then writes its submission."""


def timed_task(task_tree: Callable[..., Path], name: str, log: Path, pause: float) -> Path:
    """The timed example task, its starter and solution logging their runs to ``log``."""
    root = task_tree("timed", name)
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace('name = "timed"', f'name = "{name}"')
                        .replace("[baseline]", "[resources]\ncpus = 1\n\n[baseline]"))
    (root / "env" / "train.py").write_text(STARTER.format(pause=pause, log=str(log), value=1.0))
    (root / "solution" / "train.py").write_text(
        STARTER.format(pause=pause, log=str(log), value=2.0))
    return root


def spans(log: Path) -> list[tuple[float, float]]:
    return [(float(start), float(end))
            for start, end in (line.split() for line in log.read_text().splitlines())]


class Neighbour(threading.Thread):
    """A trial of another worker on one core: it holds its lease, as a trial does, until
    the session's starter has run or the session waits on the machine for it."""

    def __init__(self, lock_dir: Path, starter_log: Path) -> None:
        super().__init__(daemon=True)
        self.lock_dir, self.starter_log = lock_dir, starter_log
        self.holding, self.session_over = threading.Event(), threading.Event()
        self.released_at = float("inf")

    def run(self) -> None:
        with lease_cores(1, self.lock_dir):
            self.holding.set()
            while (not self.starter_log.exists() and not self._machine_awaited()
                   and not self.session_over.wait(0.05)):
                pass
            self.released_at = time.time()

    def _machine_awaited(self) -> bool:
        gate = FileLock(str(self.lock_dir / "machine.lock"))
        try:
            gate.acquire(timeout=0)
        except Timeout:
            return True
        gate.release()
        return False


def test_a_per_session_baseline_is_not_timed_beside_a_neighbours_trial(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
) -> None:
    if len(usable_cores()) < 2:
        pytest.skip("needs two usable cores: one for the neighbour, one for the trial")
    log = pytester.path / "starter-runs.txt"
    timed_task(task_tree, "timed", log, pause=0.0)
    neighbour = Neighbour(pytester.path / "cache" / "cpu-locks" / machine_id(), log)
    neighbour.start()
    assert neighbour.holding.wait(30)
    try:
        result = pytester.runpytest_subprocess(
            "tasks", "--agent=oracle", "--mlab-isolation=none", "--mlab-allow-weak-sandbox",
            *mlab_args, timeout=120)
    finally:
        neighbour.session_over.set()
        neighbour.join(30)
    result.assert_outcomes(passed=1)
    starter_runs = spans(log)[:2]  # the baseline's two runs, before the oracle's solution
    assert all(start >= neighbour.released_at for start, _ in starter_runs), (
        f"the starter was timed at {starter_runs} while a neighbour held its cores until "
        f"{neighbour.released_at}")


def test_two_workers_timing_baselines_never_overlap_and_never_wait_on_each_other(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
) -> None:
    logs = {name: pytester.path / f"{name}-runs.txt" for name in ("timed", "timed2")}
    for name, log in logs.items():
        timed_task(task_tree, name, log, pause=0.4)
    result = pytester.runpytest_subprocess(
        "tasks", "--agent=oracle", "--mlab-trials=2", "-n", "2", "--mlab-isolation=none",
        "--mlab-allow-weak-sandbox",
        *mlab_args, timeout=180)  # a worker waiting for cores it holds itself never ends
    result.assert_outcomes(passed=4)
    runs = {name: spans(log) for name, log in logs.items()}
    for (name, mine), (other, theirs) in itertools.permutations(runs.items()):
        for (start, end), (their_start, their_end) in itertools.product(mine[:2], theirs):
            assert end <= their_start or their_end <= start, (
                f"{name}'s starter was timed ({start}-{end}) while {other} ran a script "
                f"({their_start}-{their_end})")
