"""``pytest TASKDIR --mlab-validate``: one item per task that checks the task is sound
(trial/validation.py), and, on the controller, the task's records: its baseline.json
(recorded over the seeds) and its row of the suite's validation.json and README table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.plugin.keys import SETTINGS_KEY

PROPERTY = "mlab_validation"
VALIDATE_KEY = pytest.StashKey[Any]()
"""The TaskSpec a validation item checks."""


def run_validation(mlab_validation: Any) -> None:
    """The test body: the task was validated in its fixture; here it passes or fails."""
    if mlab_validation.problems:
        pytest.fail(f"{mlab_validation.task}: " + "; ".join(mlab_validation.problems),
                    pytrace=False)


@pytest.fixture
def mlab_validation(request: pytest.FixtureRequest, pytestconfig: pytest.Config) -> Any:
    """Run the task's starter over seeds, its solution, null submission and heuristics."""
    from pytest_mlab.core.errors import TaskUnavailable
    from pytest_mlab.core.machine import machine_facts, machine_id
    from pytest_mlab.core.validation_fingerprint import fingerprint, fingerprint_parts
    from pytest_mlab.env.data import prepare_task
    from pytest_mlab.plugin.fixtures import sandbox_maker
    from pytest_mlab.trial.baseline import keep_measured, measured_path
    from pytest_mlab.trial.gpu import NoGPU, lease
    from pytest_mlab.trial.reference_measure import keep_solutions
    from pytest_mlab.trial.validation import validate

    task = request.node.stash[VALIDATE_KEY]
    settings = pytestconfig.stash[SETTINGS_KEY]
    try:
        data = prepare_task(task, settings.cache_dir, settings.data_key)
    except TaskUnavailable as exc:
        pytest.skip(str(exc))
    lock_dir = settings.cache_dir / "gpu-locks" / machine_id()
    try:
        with lease(settings.gpus, task.manifest.resources.gpus, lock_dir) as gpus:
            check = validate(task, data, sandbox_maker(pytestconfig, task, gpus))
    except NoGPU as exc:
        pytest.skip(f"{task.name} {exc}")
    check.fingerprint_parts = fingerprint_parts(task)
    check.fingerprint, check.machine = fingerprint(check.fingerprint_parts), machine_facts()
    if not check.problems:
        # The starter's seeds here are the runs a per-machine baseline would measure, and
        # the solution's those --mlab-reference=here would.
        keep_measured(task, measured_path(task, settings.cache_dir, data, settings.run_id),
                      check.baseline)
        keep_solutions(task, measured_path(task, settings.cache_dir, data, settings.run_id,
                                           "references"), check.solution)
    request.node.user_properties.append((PROPERTY, json.dumps(check.to_json())))
    return check


class ValidationWriter:
    """On the controller: each validated task's baseline record and its suite's table."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.checks: dict[Path, dict[str, Any]] = {}
        self.lines: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        for name, value in report.user_properties:
            if name == PROPERTY:
                manifest = self.config.rootpath / report.nodeid.split("::")[0]
                self.checks[manifest] = json.loads(str(value))

    def pytest_sessionfinish(self) -> None:
        from pytest_mlab.core.baseline import write_record
        from pytest_mlab.core.task import load_task
        from pytest_mlab.report.task_table import write_suite

        suites: dict[Path, dict[str, dict[str, Any]]] = {}
        for manifest, check in sorted(self.checks.items()):
            task = load_task(manifest)
            suites.setdefault(task.root.parent, {})[task.name] = check
            if task.manifest.baseline.kind == "recorded" and not check["problems"]:
                rel = task.root.relative_to(self.config.rootpath).as_posix()
                record = write_record(task, check["baseline"], f"pytest {rel} --mlab-validate")
                self.lines.append(f"{task.name}: recorded {record.metric} mean="
                                  f"{record.mean:.6g} sd={record.sd:.3g} n={record.n}")
        for suite, checks in suites.items():
            self.lines.append(f"table: {write_suite(suite, checks)}")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.lines:
            terminalreporter.section("mlab validation")
            for line in self.lines:
                terminalreporter.write_line(line)
