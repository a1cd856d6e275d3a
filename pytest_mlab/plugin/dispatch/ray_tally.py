"""What a Ray session shares across its nodes: the LLM spending of every trial and each
running trial's latest step, in one actor that the nodes send to and the controller reads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pytest_mlab.core.atomic import write_atomic

_WATCH_SECONDS = 0.5


class Submitted(Protocol):
    """A trial submitted to the cluster (dispatch_ray.RemoteTrial)."""

    tally: Any
    """The session's SessionTally actor."""

    def hold_back(self, reason: str) -> None: ...


class SessionTally:
    """The session's LLM spending, and each running trial's latest step: one Ray actor
    that the nodes send to and the controller reads."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.steps: dict[str, str] = {}

    def add(self, cost: float) -> None:
        self.spent += cost

    def show(self, name: str, progress: str) -> None:
        self.steps[name] = progress

    def state(self) -> tuple[float, dict[str, str]]:
        return self.spent, self.steps


@dataclass(frozen=True)
class TallyLink:
    """SessionLink over the actor, from a node. Never waits: a Ray task that blocks on an
    answer gives its CPUs back meanwhile, and the node would start another trial."""

    actor: Any

    def add(self, cost: float) -> None:
        self.actor.add.remote(cost)

    def show(self, name: str, progress: str) -> None:
        self.actor.show.remote(name, progress)


def watch_session(trials: list[Submitted], cap: float | None, traces: Path,
                  stop: threading.Event) -> None:
    """Until ``stop``, on the controller: write each remote trial's latest step into the
    traces folder, where the live display reads local trials' steps; once the session
    has spent ``cap``, hold back every trial no node has started."""
    import ray

    tally = trials[0].tally
    written: dict[str, str] = {}
    while not stop.wait(_WATCH_SECONDS):
        try:
            spent, steps = ray.get(tally.state.remote())
        except Exception:
            return  # the cluster is gone: the items' own waits say so
        for name, text in steps.items():
            if written.get(name) != text and "/" not in name:
                write_atomic(traces / name, text)
                written[name] = text
        if cap is not None and spent >= cap:
            for trial in trials:
                trial.hold_back(f"the session's LLM budget of ${cap:g} is spent "
                                f"(${spent:.4f}); no new trial starts")
