"""task.toml files become one item per task x agent x llm x trial."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mlab.core.task import TaskFormatError, TaskSpec, load_task
from pytest_mlab.plugin.config.dispatch_options import dispatched
from pytest_mlab.plugin.dispatch.timeouts import default_timeout
from pytest_mlab.plugin.dispatch.where import run_remote_item
from pytest_mlab.plugin.keys import AGENTS_KEY, NAMED_KEY, SETTINGS_KEY, TRIAL_KEY
from pytest_mlab.trial.spec import TrialSpec


def run_trial_item(mlab_result: Any) -> None:
    """The test body: the trial ran in fixtures; here it passes or fails."""
    if not mlab_result.success:
        pytest.fail(mlab_result.message, pytrace=False)


class TrialItem(pytest.Function):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # pytest 9 matches --lf and --ff by a node id parsed into name and "[params]"; a
        # Function keeps "[...]" inside its name, so the item takes the parsed form.
        self._id = type(self._id).parse(self.nodeid)

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, self.name


class TaskFile(pytest.File):
    def collect(self) -> Iterator[TrialItem]:
        try:
            task = self.load()
        except TaskFormatError as exc:
            raise self.CollectError(str(exc)) from None
        if self.config.stash[SETTINGS_KEY].validate:
            yield self._validation_item(task)
            return
        marks = [*task.manifest.tags, *(["mlab_gpu"] if task.manifest.resources.gpus else []),
                 *(["mlab_download"] if task.manifest.downloads else [])]
        for tag in task.manifest.tags:
            self.config.addinivalue_line("markers", f"{tag}: a tag of tasks (task.toml)")
        for spec in self._specs(task):
            body = run_remote_item if dispatched(self.config) else run_trial_item
            item = TrialItem.from_parent(self, name=spec.name, callobj=body)
            item.stash[TRIAL_KEY] = spec
            for mark in [*marks, *(["mlab_llm"] if spec.llm else [])]:
                item.add_marker(mark)
            if (seconds := default_timeout(self.config, item)) is not None:
                item.add_marker(pytest.mark.timeout(seconds))
            yield item

    def load(self) -> TaskSpec:
        return load_task(self.path)

    def _validation_item(self, task: TaskSpec) -> TrialItem:
        from pytest_mlab.plugin.collection.validate import VALIDATE_KEY, run_validation

        item = TrialItem.from_parent(self, name=f"{task.name}[validate]",
                                     callobj=run_validation)
        item.stash[VALIDATE_KEY] = task
        return item

    def _specs(self, task: TaskSpec) -> list[TrialSpec]:
        """The run's trials of this task, then those node ids name that it lacks."""
        settings = self.config.stash[SETTINGS_KEY]
        agents = self.config.stash[AGENTS_KEY]
        trials = settings.record_baseline or settings.trials
        specs = [
            # Recording a baseline runs the starter with seeds 0, 1, ...; trials do not.
            TrialSpec(task=task, agent=name, llm=llm, trial=k,
                      seed=k if settings.record_baseline else None)
            for name in settings.agents
            for llm in (settings.llms if agents[name].uses_llm else (None,))
            for k in range(trials)
        ]
        for named in sorted(self.config.stash[NAMED_KEY].get(self.path.resolve(), ()),
                            key=lambda t: (t.agent, t.llm or "", t.trial)):
            if (named.llm is not None) == agents[named.agent].uses_llm:
                specs.append(TrialSpec(task=task, agent=named.agent, llm=named.llm,
                                       trial=named.trial))
        unique = {spec.name: spec for spec in specs}
        return list(unique.values())
