"""A missing provider key stops the session before any trial, in one sentence naming the
variable, instead of erroring every LLM trial once its setup is done.

Checked once, on the controller, after collection, for the models the selected trials
call: each one's --llm and the fast and edit models it implies. Nothing is checked where
no provider is called: a local server (--mlab-llm-api-base) takes any key, and replayed
replies (--mlab-llm-cache=replay) need none. Under --mlab-llm-cache=auto a trial whose
replies are all recorded needs no key either, so there a trial that misses says so itself.
Where the model's name tells its provider, its variables are looked up without importing
litellm (provider_keys.py), so that the sentence comes at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.plugin.collection.selection import loop_runs_trials
from pytest_mlab.plugin.config.provider_keys import missing_keys
from pytest_mlab.plugin.keys import SETTINGS_KEY

if TYPE_CHECKING:
    from pytest_mlab.plugin.collection.selection import Selection
    from pytest_mlab.plugin.config.llm_settings import LLMSettings
    from pytest_mlab.trial.spec import TrialSpec

_OPTIONS = {"main": "--llm", "fast": "--mlab-fast-llm", "edit": "--mlab-edit-llm"}


def missing_key(settings: LLMSettings, specs: Iterable[TrialSpec]) -> str | None:
    """The sentence naming the first variable a selected trial's provider lacks."""
    if settings.api_base is not None or settings.cache in ("replay", "auto"):
        return None
    checked: set[str] = set()
    for llm in sorted({spec.llm for spec in specs if spec.llm is not None}):
        for role, model in settings.role_models(llm).items():
            if model in checked:
                continue
            checked.add(model)
            if missing := _missing(model):
                return (f"{_OPTIONS[role]} {model} needs {' and '.join(missing)} in the "
                        "environment: set it, or send the calls to a local server with "
                        "--mlab-llm-api-base=URL, or replay recorded replies with "
                        "--mlab-llm-cache=replay")
    return None


def _missing(model: str) -> list[str]:
    """By the provider's variables where its name tells it (at once), else by litellm's
    check (after seconds of importing it)."""
    known = missing_keys(model)
    if known is not None:
        return known
    from pytest_mlab.llm.client import import_litellm

    found: dict[str, Any] = import_litellm().validate_environment(model)
    return list(found.get("missing_keys") or [])


class KeyCheck:
    """Runs the check once the selection is known: when the test loop starts, or under -n
    when the first worker has collected (before any trial is scheduled)."""

    def __init__(self, config: pytest.Config, selection: Selection) -> None:
        self.config = config
        self.selection = selection
        self.done = False

    def _check(self) -> None:
        if self.done or not self.selection.specs:
            return
        self.done = True
        message = missing_key(self.config.stash[SETTINGS_KEY].llm, self.selection.specs.values())
        if message is not None:
            raise pytest.UsageError(message)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        if loop_runs_trials(session):
            self._check()

    @pytest.hookimpl(optionalhook=True, trylast=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self._check()  # trylast: after main.XdistHooks has added the ids to the selection
