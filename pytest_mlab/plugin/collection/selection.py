"""Every selected trial is counted: the controller knows what was selected, and writes a
record for each trial that never reported (its worker crashed, or the run was stopped).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mlab.plugin.collection.trial_ids import parse_item_name
from pytest_mlab.plugin.keys import AGENTS_KEY, SETTINGS_KEY, TRIAL_KEY

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult
    from pytest_mlab.core.task import TaskSpec
    from pytest_mlab.trial.spec import TrialSpec


def loop_runs_trials(session: pytest.Session) -> bool:
    """Whether the test loop now starting will run the selected trials: not under --co or
    --setup-only (or --setup-plan), nor after a collection error that stops the session."""
    option = session.config.option
    return not (option.collectonly or option.setuponly or (
        session.testsfailed and not option.continue_on_collection_errors))


class Selection:
    """The node ids of the trials a session selected, with the spec of each."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.specs: dict[str, TrialSpec] = {}
        self.crashed: dict[str, str] = {}
        """Node id -> what xdist said when the worker running it died."""
        self._tasks: dict[Path, TaskSpec] = {}

    def add_items(self, items: list[pytest.Item]) -> None:
        for item in items:
            if TRIAL_KEY in item.stash:
                self.specs[item.nodeid] = item.stash[TRIAL_KEY]

    def add_ids(self, ids: list[str]) -> None:
        """Node ids a worker collected (the controller of -n collects nothing itself)."""
        for nodeid in ids:
            if nodeid not in self.specs and (spec := self._spec_of(nodeid)) is not None:
                self.specs[nodeid] = spec

    def _spec_of(self, nodeid: str) -> TrialSpec | None:
        from pytest_mlab.core.task import TaskFormatError, load_task
        from pytest_mlab.trial.spec import TrialSpec

        path, _, name = nodeid.partition("::")
        agents = self.config.stash[AGENTS_KEY]
        named = parse_item_name(name, agents.keys())
        if named is None or not path.endswith(".toml"):
            return None
        manifest = self.config.rootpath / path
        if manifest not in self._tasks:
            try:
                self._tasks[manifest] = load_task(manifest)
            except (OSError, TaskFormatError):
                return None
        return TrialSpec(self._tasks[manifest], named.agent, named.llm, named.trial)

    def unreported(self, reported: set[str]) -> list[TrialResult]:
        """A record for each selected trial without one: lost with its worker, or cut
        short by the interruption."""
        from pytest_mlab.trial.judge import unrun_result

        overrides = self.config.stash[SETTINGS_KEY].overrides
        records = []
        for nodeid, spec in sorted(self.specs.items()):
            if nodeid in reported:
                continue
            crash = self.crashed.get(nodeid)
            if crash is not None:
                message, error_class = f"{spec.task.name}: {crash}", "WorkerCrashed"
            else:
                message = (f"{spec.task.name}: the run was interrupted before this trial "
                           "reached its verdict")
                error_class = "Interrupted"
            record = unrun_result(nodeid, spec, overrides.threshold_for(spec.task), "error",
                                  message, error_class)
            record.interrupted = crash is None
            records.append(record)
        return records
