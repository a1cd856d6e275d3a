"""What the run does around its trials, known before it starts: the tasks whose data this
machine lacks, the tasks whose baseline is measured (none kept in <cache>/baselines yet,
or one per session), and the trials scored; with their times here before, the forecast's
lines of them (analysis/forecast_setup.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pytest_mlab.analysis.forecast import Forecast
from pytest_mlab.analysis.forecast_setup import setup_forecast
from pytest_mlab.core import phase_times
from pytest_mlab.core.phase_times import Phase
from pytest_mlab.env.data import PreparedData, is_prepared, missing_requirements, prepared_root
from pytest_mlab.report.forecast import setup_lines

if TYPE_CHECKING:
    from pytest_mlab.core.task import TaskSpec
    from pytest_mlab.plugin.config.settings import Settings
    from pytest_mlab.trial.spec import TrialSpec


def _measures_baseline(task: TaskSpec, settings: Settings) -> bool:
    kind = task.manifest.baseline.kind
    if settings.record_baseline is not None or kind in ("recorded", "none"):
        return False
    if kind == "per-session":
        return True
    # only for a measured baseline
    from pytest_mlab.trial.baseline import measured_path, runs_missing, runs_wanted

    root = prepared_root(task, settings.cache_dir, settings.data_key)
    data = PreparedData(public=root / "public", private=root / "private")
    path = measured_path(task, settings.cache_dir, data, settings.run_id)
    return runs_missing(path, runs_wanted(task, settings.baseline_runs)) > 0


def needs(specs: Iterable[TrialSpec], settings: Settings) -> dict[Phase, dict[str, int]]:
    """Phase -> task -> times the run does it."""
    specs = list(specs)
    tasks = {spec.task.name: spec.task for spec in specs}
    runnable = {name: task for name, task in tasks.items() if not missing_requirements(task)}
    return {
        "prepare": {name: 1 for name, task in runnable.items()
                    if not is_prepared(task, settings.cache_dir, settings.data_key)},
        "baseline": {name: 1 for name, task in runnable.items()
                     if _measures_baseline(task, settings)},
        "scoring": dict(Counter(spec.task.name for spec in specs)),
    }


def around_lines(specs: Iterable[TrialSpec], settings: Settings, result: Forecast) -> list[str]:
    """The forecast's lines of the time around the trials, and of the run in all."""
    setup = setup_forecast(needs(specs, settings), phase_times.read(settings.cache_dir))
    return setup_lines(setup, result)
