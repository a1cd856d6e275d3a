"""Agents that make a run go wrong on purpose, for the tests of accounting (public API only).

They coordinate through files in $MLAB_CHAOS_DIR, so that a fault happens once per test
and a resumed run goes through.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import ClassVar

from pytest_mlab import AgentContext, Environment


class _Chaos:
    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = False

    def __init__(self, context: AgentContext) -> None:
        self.context = context
        self.marks = Path(os.environ["MLAB_CHAOS_DIR"])

    def _first(self, name: str) -> bool:
        """True for the first agent in the test to ask for ``name``."""
        try:
            (self.marks / name).touch(exist_ok=False)
        except FileExistsError:
            return False
        return True

    def _turn(self, name: str) -> int:
        """This agent's place (0, 1, ...) among those in the test that ask for ``name``."""
        turn = 0
        while not self._first(f"{name}-{turn}"):
            turn += 1
        return turn

    def _wait_for(self, name: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not (self.marks / name).exists() and time.monotonic() < deadline:
            time.sleep(0.2)


class KillerAgent(_Chaos):
    """The first one kills its own process (the xdist worker); the others do fine work,
    all but two of them after waiting up to 10 s for the test to mark them "released",
    so that the run is still going when the test interrupts it on a slow machine (and
    ends soon after, as the interrupt does not reach the workers)."""

    def run(self, env: Environment) -> str:
        if self._first("killed"):
            os.kill(os.getpid(), signal.SIGKILL)
        if self._turn("working") >= 2:
            self._wait_for("released", 10.0)
        return _slow_good_work(env)


class SlowGoodAgent(_Chaos):
    """Takes a few seconds, then submits the right answer."""

    def run(self, env: Environment) -> str:
        return _slow_good_work(env)


class RaisingAgent(_Chaos):
    """Raises from deep inside its own code."""

    def run(self, env: Environment) -> str:
        env.execute("List Files", dir_path=".")
        return _plan(3)


def _plan(depth: int) -> str:
    if depth == 0:
        raise LookupError("no plan left")
    return _plan(depth - 1)


def _slow_good_work(env: Environment) -> str:
    for _ in range(3):
        env.execute("List Files", dir_path=".")
        time.sleep(0.7)
    env.execute("Write File", file_name="submission.txt", content="50\n")
    env.execute("Final Answer", final_answer="submitted 10")
    return "done"
