"""pytest-timeout, wired to the trial: a timeout stops the trial the way a limit does,
and the trial is still scored and recorded, instead of a thread dump and a lost record.

Each trial gets a timeout by default (its task's max_time + score_timeout + the LLM
timeout + a margin) unless the user set one. When it fires, the trial is told to stop:
the agent's next step ends its turn, a running script is killed where the sandbox can,
and the workspace is scored; the item then errors with one line. Should the trial not
end within a grace period after that, the item is failed there and then, also in one line.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import pytest

from pytest_mlab.env.control import TrialControl
from pytest_mlab.plugin.keys import CONTROL_KEY, SETTINGS_KEY, TRIAL_KEY

MARGIN = 60.0
"""Seconds a trial may run past its own limits before the default timeout."""


def default_timeout(config: pytest.Config, item: pytest.Item) -> float | None:
    """The trial's own bound, unless the user gave --timeout (or its ini key or variable)."""
    if not config.pluginmanager.hasplugin("timeout"):
        return None
    if config.getoption("timeout", None) is not None or os.environ.get("PYTEST_TIMEOUT"):
        return None
    try:
        if config.getini("timeout"):
            return None
    except ValueError:
        return None
    settings = config.stash[SETTINGS_KEY]
    limits = settings.overrides.limits_for(item.stash[TRIAL_KEY].task)
    return limits.max_time + limits.score_timeout + settings.llm.timeout + MARGIN


class TrialTimeouts:
    """Implements pytest-timeout's timer hooks for trial items."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_timeout_set_timer(self, item: pytest.Item, settings: Any) -> bool | None:
        if TRIAL_KEY not in item.stash:
            return None
        seconds = float(settings.timeout)
        control = item.stash[CONTROL_KEY] = TrialControl()
        reason = f"the pytest timeout of {seconds:g} s stopped the trial"
        soft = threading.Timer(seconds, control.stop, (reason, "Timeout"))
        soft.daemon = True
        soft.start()
        hard = self._hard_stop(item, seconds)

        def cancel() -> None:
            soft.cancel()
            if hard:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, signal.SIG_DFL)

        item.stash[CANCEL_KEY] = cancel
        return True

    @staticmethod
    def _hard_stop(item: pytest.Item, seconds: float) -> bool:
        """After a grace (to finish the step and score), fail the item in one line."""
        if threading.current_thread() is not threading.main_thread():
            return False
        task = item.stash[TRIAL_KEY].task
        settings = item.config.stash[SETTINGS_KEY]
        grace = task.manifest.limits.score_timeout + settings.llm.timeout + MARGIN

        def hard(signum: int, frame: object) -> None:
            pytest.fail(f"{task.name}: timed out: the pytest timeout of {seconds:g} s passed, "
                        f"and the trial did not stop within {grace:g} s more", pytrace=False)

        signal.signal(signal.SIGALRM, hard)
        signal.setitimer(signal.ITIMER_REAL, seconds + grace)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_timeout_cancel_timer(self, item: pytest.Item) -> bool | None:
        cancel = item.stash.get(CANCEL_KEY, None)
        if cancel is None:
            return None
        cancel()
        del item.stash[CANCEL_KEY]
        return True


CANCEL_KEY = pytest.StashKey[Any]()
