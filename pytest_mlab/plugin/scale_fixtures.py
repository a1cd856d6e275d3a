"""The two ends of a trial's scale: the baseline to beat (the 0 of its normalised score)
and the reference solution's score (the 1). Each measured one is measured on leases of its
own, before the trial's are taken (mlab_gpu and mlab_cpus wait for mlab_reference)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import pytest

from pytest_mlab.core.baseline import Baseline, read_record
from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.core.task import TaskFormatError, TaskSpec
from pytest_mlab.env.data import PreparedData
from pytest_mlab.plugin.config.settings import Settings
from pytest_mlab.plugin.fixtures import sandbox_maker
from pytest_mlab.plugin.reporting.setup_phases import announced
from pytest_mlab.plugin.warnings import MlabWarning
from pytest_mlab.trial.baseline import (
    measure_starters,
    measured_baseline,
    measured_path,
    runs_wanted,
)
from pytest_mlab.trial.gpu import NoGPU
from pytest_mlab.trial.reference import Reference, recorded
from pytest_mlab.trial.reference_measure import measure_solutions, measured


def _runs(count: int) -> str:
    return f"{count} run" + ("" if count == 1 else "s")


@pytest.fixture
def mlab_baseline(
    pytestconfig: pytest.Config, mlab_task: TaskSpec, mlab_settings: Settings,
    mlab_data: PreparedData,
) -> Baseline | None:
    """The baseline to beat; None while a baseline is being recorded. A measured one is
    measured on leases of its own (trial/baseline.py), before the trial's are taken."""
    task, settings = mlab_task, mlab_settings
    if settings.record_baseline is not None or task.manifest.baseline.kind == "none":
        return None
    if task.manifest.baseline.kind != "recorded":
        path = measured_path(task, settings.cache_dir, mlab_data, settings.run_id)

        def measure(seeds: Sequence[int]) -> list[float]:  # only the runs not kept yet
            with announced(pytestconfig, task.name, "baseline",
                           f"measuring its baseline ({_runs(len(seeds))} of the starter)...",
                           "baseline measured"):
                return measure_starters(
                    task, mlab_data, seeds, settings.gpus, settings.cache_dir,
                    lambda gpus, cpus: sandbox_maker(pytestconfig, task, gpus, cpus))

        try:
            return measured_baseline(task, path, measure,
                                     runs_wanted(task, settings.baseline_runs))
        except NoGPU as exc:
            pytest.skip(f"{task.name} {exc}")
    try:
        record = read_record(task)
    except TaskFormatError as exc:
        raise InfrastructureError(str(exc)) from None
    if record is None:
        pytest.skip(f"{task.name} has no recorded baseline; validate the task, which "
                    f"records it: pytest {task.root} --mlab-validate")
    if record.task_hash != task.content_hash():
        warnings.warn(MlabWarning(f"{task.baseline_record} was recorded for another version "
                                  f"of the task; validate it again: pytest {task.root} "
                                  "--mlab-validate"), stacklevel=1)
    baseline = record.baseline()
    if baseline.note:
        warnings.warn(MlabWarning(f"{task.name}: the baseline was {baseline.note}; validate "
                                  f"the task here: pytest {task.root} --mlab-validate"),
                      stacklevel=1)
    return baseline




@pytest.fixture
def mlab_reference(
    pytestconfig: pytest.Config, mlab_task: TaskSpec, mlab_settings: Settings,
    mlab_data: PreparedData, mlab_baseline: Baseline | None,
) -> Reference | None:
    """The reference solution's score: with --mlab-reference=here, measured where a
    measured baseline is (trial/reference_measure.py); else validation.json's. None where
    the task has neither, or while a baseline is being recorded (no normalised score)."""
    task, settings = mlab_task, mlab_settings
    if mlab_baseline is None:
        return None
    if settings.reference != "here" or not task.solution_dir.is_dir():
        return recorded(task)
    path = measured_path(task, settings.cache_dir, mlab_data, settings.run_id, "references")
    try:
        return measured(path, lambda: measure_solutions(
            task, mlab_data, settings.gpus, settings.cache_dir,
            lambda gpus, cpus: sandbox_maker(pytestconfig, task, gpus, cpus)))
    except NoGPU as exc:
        pytest.skip(f"{task.name} {exc}")
