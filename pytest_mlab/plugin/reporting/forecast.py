"""The forecast, on the controller, once the trials are known and before the first starts;
with --mlab-max-session-cost, a run whose forecast's low end is above it does not start.

Without -n the controller collects the trials itself (a Ray controller too, and forecasts
before it submits any); under -n it collects none, and learns them from the first worker
that finishes collecting (each collects them all), before xdist deals any out.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.core.text import plural
from pytest_mlab.plugin.config.resolve import storage_dir
from pytest_mlab.plugin.keys import SETTINGS_KEY, TRIAL_KEY

if TYPE_CHECKING:
    from pytest_mlab.trial.spec import Overrides, TrialSpec

_UNFINISHED = ("Interrupted", "WorkerCrashed")
"""Error classes of the trials a resumed session runs again."""


def _xdist_workers(config: pytest.Config) -> int:
    return max(1, len(getattr(config.option, "tx", None) or ())
               or int(getattr(config.option, "numprocesses", 0) or 1))


class Forecaster:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.lines: list[str] = []
        self.done = False

    @pytest.hookimpl(tryfirst=True)  # before Ray gets any trial
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from pytest_mlab.plugin.config.dispatch_options import dispatched

        trials = [(item.nodeid, item.stash[TRIAL_KEY]) for item in session.items
                  if TRIAL_KEY in item.stash]
        self.lines = self.forecast(trials, None if dispatched(self.config) else 1)

    def pytest_report_collectionfinish(self) -> list[str]:
        return self.lines

    @pytest.hookimpl(tryfirst=True, optionalhook=True)  # before xdist deals any trial
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        from pytest_mlab.plugin.collection.selection import Selection

        if self.done:
            return
        selection = Selection(self.config)
        selection.add_ids(ids)
        lines = self.forecast(selection.specs.items(), _xdist_workers(self.config))
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None and lines:
            terminal.ensure_newline()
            for line in lines:
                terminal.write_line(line)

    def forecast(self, trials: Iterable[tuple[str, TrialSpec]], workers: int | None) -> list[str]:
        """The forecast's lines; refuses the run where its low end is above the cap."""
        self.done = True
        done = self._finished()
        specs = [spec for nodeid, spec in trials if nodeid not in done]
        option = self.config.option
        if not specs or option.collectonly or option.showfixtures or (
                option.show_fixtures_per_test):  # these run no trial
            return []
        from pytest_mlab.analysis.forecast import Cell, forecast, history, refuses
        from pytest_mlab.analysis.forecast_history import read_history, run_paths, starter_floors
        from pytest_mlab.plugin.reporting.forecast_setup import around_lines
        from pytest_mlab.report.forecast import forecast_lines, refusal, reproduction_lines

        settings = self.config.stash[SETTINGS_KEY]
        grid = Counter(Cell(spec.task.name, spec.agent, spec.llm) for spec in specs)
        past = read_history(run_paths(settings.report_dir, storage_dir(self.config)))
        floors = starter_floors({spec.task.name: spec.task.root.parent for spec in specs})
        result = forecast(grid, history(past.records), floors, workers)
        cap = settings.llm.max_session_cost
        if cap is not None and refuses(result, cap):  # no trial began: no run is written
            raise pytest.UsageError(refusal(result, cap))
        lines = forecast_lines(result, cap, verbose=self.config.get_verbosity() > 0)
        lines += around_lines(specs, settings, result)
        lines += reproduction_lines(_reproduced(specs, settings.overrides), floors)
        saved_runs = self.config.pluginmanager.get_plugin("mlab-saved-runs")
        if saved_runs is not None:
            lines += saved_runs.detection_lines(specs)
        if past.unreadable:
            lines.append(f"mlab forecast: skipped "
                         f"{plural(len(past.unreadable), 'unreadable results file')}, "
                         f"e.g. {past.unreadable[0]}")
        return lines

    def _finished(self) -> set[str]:
        """Trials of the resumed run that keep their verdict: no forecast for them."""
        reporter = self.config.pluginmanager.get_plugin("mlab-reporter")
        resumed = getattr(reporter, "resumed", None)
        if resumed is None:
            return set()
        return {r.nodeid for r in resumed.results if r.error_class not in _UNFINISHED}


def _reproduced(specs: Iterable[TrialSpec], overrides: Overrides) -> dict[str, tuple[int, float]]:
    """Task -> how many of its trials are reproduced, and its script time limit."""
    runs: dict[str, tuple[int, float]] = {}
    for spec in specs:
        if overrides.reproduces(spec.task):
            count, _ = runs.get(spec.task.name, (0, 0.0))
            runs[spec.task.name] = (count + 1, overrides.limits_for(spec.task).script_timeout)
    return runs


@pytest.hookimpl(trylast=True)  # after the plugin's own, which resolves the settings
def pytest_configure(config: pytest.Config) -> None:
    """The forecaster, on the controller of a session that runs trials: not on an xdist
    worker, nor in a Ray node's session (it runs one trial the controller forecast); and,
    under -n, the poller of the workers' set-up lines."""
    from pytest_mlab.core.run_files import RUN_ID_VARIABLE
    from pytest_mlab.plugin.reporting.setup_phases import register

    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None or hasattr(config, "workerinput") or os.environ.get(RUN_ID_VARIABLE):
        return
    register(config)  # the set-up the forecast counts, said as it passes under -n
    if not settings.validate:
        config.pluginmanager.register(Forecaster(config), "mlab-forecaster")
