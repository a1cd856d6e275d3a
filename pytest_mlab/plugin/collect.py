"""task.toml files become one item per task x agent x llm x trial."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mlab.core.task import TaskFormatError, load_task
from pytest_mlab.plugin.keys import AGENTS_KEY, SETTINGS_KEY, TRIAL_KEY
from pytest_mlab.trial.spec import TrialSpec


def run_trial_item(mlab_result: Any) -> None:
    """The test body: the trial ran in fixtures; here it passes or fails."""
    if not mlab_result.success:
        pytest.fail(mlab_result.message, pytrace=False)


class TrialItem(pytest.Function):
    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, self.name


class TaskFile(pytest.File):
    def collect(self) -> Iterator[TrialItem]:
        try:
            task = load_task(self.path)
        except TaskFormatError as exc:
            raise self.CollectError(str(exc)) from None
        settings = self.config.stash[SETTINGS_KEY]
        agents = self.config.stash[AGENTS_KEY]
        trials = settings.record_baseline or settings.trials
        for agent_name, agent in agents.items():
            llms: tuple[str | None, ...] = settings.llms if agent.uses_llm else (None,)
            for llm in llms:
                for k in range(trials):
                    spec = TrialSpec(task=task, agent=agent_name, llm=llm, trial=k)
                    item = TrialItem.from_parent(self, name=spec.name, callobj=run_trial_item)
                    item.stash[TRIAL_KEY] = spec
                    yield item
