"""Options and the end-of-run hook for saved runs, comparisons, the gate and the markdown
summary. All of it runs on the controller, once the Reporter has written results.json."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.analysis.gate import (
    DEFAULT_ALPHA,
    GateReport,
    Limit,
    compare,
    comparison_lines,
    parse_alpha,
    parse_limit,
)
from pytest_mlab.analysis.saved_runs import DEFAULT_STORAGE, HistoryError, Storage, load, save_name
from pytest_mlab.report.markdown import markdown
from pytest_mlab.core.results import RunResults
from pytest_mlab.plugin.warnings import MlabWarning


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mlab", "pytest-mlab: ML agent benchmark")
    group.addoption(
        "--mlab-save", nargs="?", const="", type=save_name, dest="mlab_save", metavar="NAME",
        help="Save this run's results in the storage folder as NNNN_NAME.json. "
        "Default NAME: the run id.",
    )
    group.addoption(
        "--mlab-autosave", action="store_true", dest="mlab_autosave",
        help="Save every run in the storage folder, named by its run id.",
    )
    group.addoption(
        "--mlab-storage", type=Path, dest="mlab_storage", metavar="DIR",
        help=f"Folder of saved runs, relative to the rootdir. Default: {DEFAULT_STORAGE}.",
    )
    group.addoption(
        "--mlab-compare", nargs="?", const="", dest="mlab_compare", metavar="RUN",
        help="Compare this run with a saved one: its number (0003), its name, or a path to "
        "any results.json, written after '='. Default RUN: the latest saved run.",
    )
    group.addoption(
        "--mlab-compare-fail", action="append", type=parse_limit, dest="mlab_compare_fail",
        metavar="EXPR",
        help="Fail the session when a task x agent x llm falls by more than EXPR and the "
        "fall is significant: success:-10%% (the success rate drops by more than 10 points), "
        "improvement:-5%% (the mean improvement drops by more than 5 points); a fraction "
        "works too (success:-0.1). Repeat for several. With a limit the gate decides the "
        "exit status: failed trials are measurements, only errors and a tripped gate fail.",
    )
    group.addoption(
        "--mlab-compare-alpha", type=parse_alpha, dest="mlab_compare_alpha", metavar="P",
        help=f"Significance level of the gate's one-sided tests. Default: {DEFAULT_ALPHA}.",
    )
    group.addoption(
        "--mlab-report-md", type=Path, dest="mlab_report_md", metavar="PATH",
        help="Write a markdown summary (and the comparison) to PATH, e.g. "
        "$GITHUB_STEP_SUMMARY.",
    )
    parser.addini("mlab_storage", "Folder of saved runs (see --mlab-storage).", type="string")


@dataclass(frozen=True)
class HistoryOptions:
    storage: Storage
    save: str | None
    """None: do not save; '' : save under the run id."""
    baseline: Path | None
    limits: tuple[Limit, ...]
    alpha: float
    markdown: Path | None


def _options(config: pytest.Config) -> HistoryOptions:
    root, here = config.rootpath, config.invocation_params.dir
    folder = config.getoption("mlab_storage") or config.getini("mlab_storage") or DEFAULT_STORAGE
    storage = Storage(root / folder)
    save: str | None = config.getoption("mlab_save")
    if save is None and config.getoption("mlab_autosave"):
        save = ""
    wanted: str | None = config.getoption("mlab_compare")
    limits = tuple(config.getoption("mlab_compare_fail") or ())
    if limits and wanted is None:
        raise pytest.UsageError(
            "--mlab-compare-fail needs a run to compare with: add --mlab-compare[=RUN]"
        )
    baseline = None
    if wanted is not None:
        try:
            baseline = storage.find(wanted, here)
        except HistoryError as exc:
            if wanted or limits:
                raise pytest.UsageError(f"--mlab-compare: {exc}") from None
            config.issue_config_time_warning(MlabWarning(f"--mlab-compare: {exc}"), stacklevel=2)
    markdown: Path | None = config.getoption("mlab_report_md")
    return HistoryOptions(
        storage=storage, save=save, baseline=baseline, limits=limits,
        alpha=config.getoption("mlab_compare_alpha") or DEFAULT_ALPHA,
        markdown=here / markdown if markdown else None,
    )


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    options = _options(config)
    baseline = None
    if options.baseline is not None:
        try:
            baseline = load(options.baseline)
        except HistoryError as exc:
            raise pytest.UsageError(f"--mlab-compare: {exc}") from None
    config.pluginmanager.register(History(config, options, baseline), "mlab-history")


class History:
    """Saves, compares, gates and writes the markdown summary once the run is written."""

    def __init__(
        self, config: pytest.Config, options: HistoryOptions, baseline: RunResults | None
    ) -> None:
        self.config = config
        self.options = options
        self.baseline = baseline
        self.lines: list[str] = []
        self.failures: list[str] = []

    def pytest_report_header(self) -> str | None:
        if self.options.baseline is None:
            return None
        gate = ", ".join(str(limit) for limit in self.options.limits)
        return f"mlab: comparing with {self.options.baseline}" + (
            f"; gate {gate} at alpha {self.options.alpha:g}" if gate else ""
        )

    def pytest_mlab_run_written(
        self, session: pytest.Session, run: RunResults
    ) -> tuple[list[str], list[str]] | None:
        report = None
        if self.baseline is not None and self.options.baseline is not None:
            report = compare(
                self.baseline, run, self.options.limits, alpha=self.options.alpha,
                baseline_name=_label(
                    self.options.baseline, self.options.storage.folder, self.config.rootpath
                ),
            )
            self.lines += comparison_lines(report)
            self.failures = report.failures if report.comparisons else self.lines[-1:]
        comparison = (list(self.lines), list(self.failures)) if report is not None else None
        if self.options.save is not None:
            saved = self.options.storage.save(run, self.options.save)
            self.lines.append(f"saved: {saved.path}")
        if self.options.markdown is not None:
            self.options.markdown.parent.mkdir(parents=True, exist_ok=True)
            self.options.markdown.write_text(markdown(run.run.run_id, run.results, report))
            self.lines.append(f"markdown: {self.options.markdown}")
        if report is not None and report.limits:
            session.exitstatus = _gated_exit(session, run, report)
        return comparison

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.lines:
            return
        terminalreporter.section("mlab history")
        for line in self.lines:
            terminalreporter.write_line(line, red=line in self.failures)


def _label(path: Path, storage: Path, root: Path) -> str:
    """A saved run by its file name; any other results.json by its path from the rootdir."""
    if path.parent == storage:
        return path.name
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _gated_exit(session: pytest.Session, run: RunResults, report: GateReport) -> int:
    """A tripped gate fails the session, and so does a gate that compared nothing (a CI
    job that gates should know it did not); failed trials alone do not, since a benchmark
    measures them (an agent that passes every trial needs no gate)."""
    status = session.exitstatus
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return status
    if report.tripped or not report.comparisons:
        return pytest.ExitCode.TESTS_FAILED
    trial_failures = sum(r.outcome == "failed" for r in run.results)
    if status == pytest.ExitCode.TESTS_FAILED and session.testsfailed == trial_failures:
        return pytest.ExitCode.OK
    return status
