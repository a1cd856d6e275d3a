"""The controller alone aggregates the records, writes the run and prints its summary.

Every selected trial ends up in results.json exactly once: those that reported, those a
crashed worker lost, and those an interruption cut short; a resumed run keeps its own.
"""

from __future__ import annotations

import shlex
import time
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.plugin.collection.selection import Selection
from pytest_mlab.plugin.keys import SETTINGS_KEY
from pytest_mlab.plugin.reporting.records import PROPERTY

if TYPE_CHECKING:
    from pytest_mlab.core.results import RunInfo, RunResults, TrialResult
    from pytest_mlab.report.model import ReportModel

_CRASHED = "???"
"""The phase xdist gives the report of an item whose worker died."""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class Reporter:
    def __init__(self, config: pytest.Config, resumed: RunResults | None = None,
                 *, node_session: bool = False) -> None:
        self.config = config
        self.resumed = resumed
        self.node_session = node_session
        """A Ray node's session for one trial: it writes results.json only, which the
        controller reads; the report, history and baselines are the controller's."""
        self.selection = Selection(config)
        self.results: list[TrialResult] = []
        self.started = _now()
        self.run: RunInfo | None = None
        self.report: ReportModel | None = None
        self.recorded: list[str] = []
        self.began = False
        """Whether a trial started: a session that ran none (--fixtures, --co, --setup-plan,
        a collection error, an empty selection) writes no run."""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not session.config.option.collectonly:  # else nothing runs, and nothing is lost
            self.selection.add_items(session.items)

    def pytest_runtest_logstart(self) -> None:
        # Under -n, xdist relays each worker's start here; --setup-only runs no trial.
        if self.began or self.config.option.setuponly:
            return
        self.began = True
        if not self.node_session:  # a Ray node's session joins the controller's run
            from pytest_mlab.core.session_owner import write_owner

            owner = self.config.stash[SETTINGS_KEY].run_files.owner
            owner.parent.mkdir(parents=True, exist_ok=True)
            write_owner(owner)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == _CRASHED and report.failed:
            self.selection.crashed[report.nodeid] = str(report.longrepr).splitlines()[0]
        for name, value in report.user_properties:
            if name == PROPERTY:
                from pytest_mlab.core.results import TrialResult

                result = TrialResult.model_validate_json(str(value))
                self.results.append(result)
                self.config.hook.pytest_mlab_trial_result(config=self.config, result=result)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        reported = {r.nodeid for r in self.results}
        lost = self.selection.unreported(reported)
        if not self.began or (not self.results and not lost and self.resumed is None):
            return
        # Imported here: runs without trials never write or render a run.
        from pytest_mlab.analysis.summary import summarise
        from pytest_mlab.core.results import RunResults
        from pytest_mlab.plugin.reporting.resume import merged

        settings = self.config.stash[SETTINGS_KEY]
        interrupted = session.exitstatus == pytest.ExitCode.INTERRUPTED
        records = merged(self.resumed, [*self.results, *lost])
        self.run = self._run_info(records, len(self.results), interrupted)
        run = RunResults(run=self.run, results=records, summary=summarise(records))
        files = settings.run_files
        run.write(files.results)
        if self.node_session:
            return
        # Below a Ray node's return: each of its trials is a process of its own, and would
        # pay for jinja2 and the report model it never renders.
        from pytest_mlab.core.trial_seconds import update_history
        from pytest_mlab.report.html import write_report
        from pytest_mlab.report.model import build_report
        from pytest_mlab.trial.baseline import record_baselines

        update_history(settings.cache_dir, self.results)
        comparison = self.config.hook.pytest_mlab_run_written(session=session, run=run)
        self.report = build_report(run, files.root, comparison,
                                   self.config.getoption("mlab_pass_k"))
        write_report(self.report, files.report)
        if settings.record_baseline is not None:
            self.recorded = record_baselines(records, self.config.rootpath,
                                             settings.record_baseline)

    def _run_info(self, records: list[TrialResult], reported: int,
                  interrupted: bool) -> RunInfo:
        from pytest_mlab.core.machine import machine_id
        from pytest_mlab.core.results import RunInfo, Session
        from pytest_mlab.core.vcs import commit_of
        from pytest_mlab.core.version import __version__
        from pytest_mlab.plugin.reporting.resume import signature

        settings = self.config.stash[SETTINGS_KEY]
        command = ["pytest", *self.config.invocation_params.args]
        session = Session(started=self.started, finished=_now(), command=command,
                          trials=reported, interrupted=interrupted)
        first = self.resumed.run if self.resumed is not None else None
        complete = all(r.outcome != "error" or r.error_class not in ("Interrupted",
                                                                     "WorkerCrashed")
                       for r in records)
        return RunInfo(
            run_id=settings.run_id, started=first.started if first else self.started,
            finished=session.finished, command=first.command if first else command,
            machine=machine_id(), pytest_mlab_version=__version__, sandbox=settings.sandbox,
            commit=commit_of(self.config.rootpath), settings=settings.header().splitlines(),
            selected=len(records), complete=complete, interrupted=interrupted,
            resume_command=None if complete else shlex.join(
                [*(first.command if first else command), f"--mlab-resume={settings.run_id}"]
            ),
            sessions=[*(first.sessions if first else []), session],
            signature=signature(self.config, settings),
        )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.run is None or self.node_session:
            return
        from pytest_mlab.report.terminal import isolation_lines, run_lines, summary_lines

        settings = self.config.stash[SETTINGS_KEY]
        terminalreporter.section("mlab")
        warnings: list[tuple[str, bool]] = []
        if self.report is not None:
            width = self.config.get_terminal_writer().fullwidth
            verbose = self.config.get_verbosity() > 0
            for line in summary_lines(self.report.rows, width, verbose):
                terminalreporter.write_line(line)
            if settings.sandbox == "local":
                from pytest_mlab.sandbox.isolation import best_available

                warnings = isolation_lines(best_available(settings.isolation),
                                           self.report.header.isolation)
        for line in self.recorded:
            terminalreporter.write_line(line)
        files = settings.run_files
        for line, red in [*warnings, *run_lines(self.run, files.results, files.report)]:
            terminalreporter.write_line(line, red=red)
