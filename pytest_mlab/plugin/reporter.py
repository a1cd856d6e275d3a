"""Results ride on test reports; the controller alone aggregates, writes and prints."""

from __future__ import annotations

import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.plugin.keys import RESULT_KEY, SETTINGS_KEY, TRIAL_KEY

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult
    from pytest_mlab.report.model import ReportModel

PROPERTY = "mlab_result"


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def _junit_properties(result: TrialResult) -> list[tuple[str, object]]:
    """The numbers CI tools read from --junitxml, one <property> each; absent ones left out."""
    values: dict[str, object] = {
        "score": result.score, "baseline": result.baseline_mean,
        "improvement": result.improvement, "steps": result.steps,
        "tokens": result.tokens_in + result.tokens_out, "cost": result.cost,
    }
    return [(name, value) for name, value in values.items() if value is not None]


def _unrun_result(
    item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[None]
) -> TrialResult:
    """The record of a trial that never reached its verdict: skipped, or an error."""
    from pytest_mlab.trial.judge import unrun_result

    spec = item.stash[TRIAL_KEY]
    threshold = item.config.stash[SETTINGS_KEY].overrides.threshold_for(spec.task)
    if report.skipped:
        return unrun_result(item.nodeid, spec, threshold, "skipped", _skip_reason(report))
    error = call.excinfo.value if call.excinfo is not None else None
    # An LLM error names the provider's exception, not our wrapper.
    error_class = getattr(error, "error_class", None) or type(error).__name__
    first_line = (str(error).strip().splitlines() or [""])[0]
    message = f"{spec.task.name}: {error_class}: {first_line}"
    return unrun_result(item.nodeid, spec, threshold, "error", message, error_class)


class Reporter:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.is_worker = hasattr(config, "workerinput")
        self.results: list[TrialResult] = []
        self.started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        self.results_path: Path | None = None
        self.report: ReportModel | None = None
        self.report_path: Path | None = None
        self.recorded: list[str] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if TRIAL_KEY not in item.stash:
            return report
        result = item.stash.get(RESULT_KEY, None)
        if call.when == "call" and result is not None:
            report.user_properties.append((PROPERTY, result.model_dump_json()))
            # junitxml writes the properties of the teardown report, made from the item's.
            item.user_properties.extend(_junit_properties(result))
        elif call.when == "setup" and not report.passed:
            result = _unrun_result(item, report, call)
            report.user_properties.append((PROPERTY, result.model_dump_json()))
            item.user_properties.extend(_junit_properties(result))
            excinfo = call.excinfo
            fulltrace = item.config.getoption("fulltrace", False)
            if excinfo and isinstance(excinfo.value, InfrastructureError) and not fulltrace:
                # The harness's own frames would only hide the cause; the message
                # carries the task code's traceback where there is one.
                report.longrepr = f"{excinfo.typename}: {excinfo.value}"
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.is_worker:
            return
        for name, value in report.user_properties:
            if name == PROPERTY:
                from pytest_mlab.core.results import TrialResult

                result = TrialResult.model_validate_json(str(value))
                self.results.append(result)
                self.config.hook.pytest_mlab_trial_result(config=self.config, result=result)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker or not self.results:
            return
        # Imported here: workers and runs without trials never write or render a run.
        from pytest_mlab.core.machine import machine_id
        from pytest_mlab.core.results import RunInfo, RunResults
        from pytest_mlab.core.vcs import commit_of
        from pytest_mlab.core.version import __version__
        from pytest_mlab.report.html import write_report
        from pytest_mlab.report.model import build_report
        from pytest_mlab.trial.baseline import record_baselines

        settings = self.config.stash[SETTINGS_KEY]
        run = RunInfo(
            run_id=settings.run_id, started=self.started,
            finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            command=[Path(sys.argv[0]).name, *self.config.invocation_params.args],
            machine=machine_id(), pytest_mlab_version=__version__, sandbox=settings.sandbox,
            commit=commit_of(self.config.rootpath), settings=settings.header().splitlines(),
        )
        self.results.sort(key=lambda r: r.nodeid)
        files = settings.run_files
        self.results_path = files.results
        results = RunResults(run=run, results=self.results)
        results.write(files.results)
        comparison = self.config.hook.pytest_mlab_run_written(session=session, run=results)
        self.report = build_report(results, files.root, comparison)
        self.report_path = write_report(self.report, files.report)
        if settings.record_baseline is not None:
            self.recorded = record_baselines(self.results, self.config.rootpath,
                                             settings.record_baseline)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or not self.results:
            return
        from pytest_mlab.report.terminal import summary_lines

        terminalreporter.section("mlab")
        if self.report is not None:
            for line in summary_lines(self.report.rows):
                terminalreporter.write_line(line)
        for line in self.recorded:
            terminalreporter.write_line(line)
        if self.results_path is not None:
            terminalreporter.write_line(f"results: {self.results_path}")
        if self.report_path is not None:
            terminalreporter.write_line(f"report: {self.report_path}")
