"""How a trial's turn ends from the environment's side: ``execute`` raises one of these,
and agents should let it propagate."""

from __future__ import annotations


class TrialOver(Exception):
    """Raised by ``execute`` once the trial has ended; agents should let it propagate."""


class StepLimitReached(TrialOver):
    pass


class TimeLimitReached(TrialOver):
    pass


class AlreadySubmitted(TrialOver):
    pass


class TrialStopped(TrialOver):
    """Stopped from outside the trial (a timeout); the message says by what."""

    def __init__(self, reason: str, error_class: str) -> None:
        super().__init__(reason)
        self.error_class = error_class
