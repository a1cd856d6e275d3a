"""Stopping a running trial from outside it (another thread: a timeout's timer)."""

from __future__ import annotations

from pytest_mlab.env.trial_over import TrialStopped


class TrialControl:
    """Once ``stop`` is called, the trial's next step ends the agent's turn, and the
    script running now, if any, is killed (by the sandbox's ``interrupt``, where it has
    one); the workspace is then scored as usual."""

    def __init__(self) -> None:
        self.stopped: TrialStopped | None = None
        self.sandbox: object | None = None
        """The trial's sandbox, once the trial runs."""

    def stop(self, reason: str, error_class: str) -> None:
        self.stopped = TrialStopped(reason, error_class)
        interrupt = getattr(self.sandbox, "interrupt", None)
        if interrupt is not None:
            interrupt(reason)
