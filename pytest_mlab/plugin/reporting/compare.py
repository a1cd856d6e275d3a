"""Saved runs, the comparison with one, the gate and the markdown summary. All of it runs
on the controller, once the Reporter has written results.json."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.analysis.gate import DEFAULT_ALPHA, GateReport, Limit, compare
from pytest_mlab.analysis.gate_suite import NormalisedDrop
from pytest_mlab.analysis.groups import Group
from pytest_mlab.analysis.saved_runs import SavedRunError, Storage, load
from pytest_mlab.core.results import RunResults
from pytest_mlab.plugin.config.resolve import storage_dir
from pytest_mlab.plugin.warnings import MlabWarning
from pytest_mlab.report.markdown import markdown
from pytest_mlab.report.terminal import comparison_lines

if TYPE_CHECKING:
    from pytest_mlab.trial.spec import TrialSpec


@dataclass(frozen=True)
class SavedRunOptions:
    storage: Storage
    save: str | None
    """None: do not save; '' : save under the run id."""
    baseline: Path | None
    limits: tuple[Limit, ...]
    alpha: float
    markdown: Path | None
    drop: NormalisedDrop | None = None
    pass_k: int | None = None
    any_containment: bool = False
    """--mlab-compare-any-containment: compare runs whose containment differs."""
    leave_flagged: bool = False
    """--mlab-compare-leave-flagged: compare without the trials the rule checks flagged."""


def _options(config: pytest.Config) -> SavedRunOptions:
    here = config.invocation_params.dir
    storage = Storage(storage_dir(config))
    save: str | None = config.getoption("mlab_save")
    if save is None and config.getoption("mlab_autosave"):
        save = ""
    wanted: str | None = config.getoption("mlab_compare")
    limits = tuple(config.getoption("mlab_compare_fail") or ())
    tolerance: float | None = config.getoption("mlab_compare_normalised_drop")
    significant = bool(config.getoption("mlab_compare_normalised_significant"))
    if significant and tolerance is None:
        raise pytest.UsageError("--mlab-compare-normalised-significant needs a tolerance: "
                                "add --mlab-compare-normalised-drop=DROP")
    alpha = config.getoption("mlab_compare_alpha") or DEFAULT_ALPHA
    drop = (NormalisedDrop(tolerance, alpha if significant else None)
            if tolerance is not None else None)
    for flag, given in (("--mlab-compare-fail", limits), ("--mlab-compare-normalised-drop", drop)):
        if given and wanted is None:
            raise pytest.UsageError(
                f"{flag} needs a run to compare with: add --mlab-compare[=RUN]"
            )
    baseline = None
    if wanted is not None:
        try:
            baseline = storage.find(wanted, here)
        except SavedRunError as exc:
            if wanted or limits or drop:
                raise pytest.UsageError(f"--mlab-compare: {exc}") from None
            config.issue_config_time_warning(MlabWarning(f"--mlab-compare: {exc}"), stacklevel=2)
    markdown: Path | None = config.getoption("mlab_report_md")
    return SavedRunOptions(
        storage=storage, save=save, baseline=baseline, limits=limits,
        alpha=alpha, markdown=here / markdown if markdown else None, drop=drop,
        pass_k=config.getoption("mlab_pass_k"),
        any_containment=bool(config.getoption("mlab_compare_any_containment")),
        leave_flagged=bool(config.getoption("mlab_compare_leave_flagged")),
    )


def register(config: pytest.Config) -> None:
    """Register the saved-runs plugin on the controller, loading the run to compare with."""
    options = _options(config)
    baseline = None
    if options.baseline is not None:
        try:
            baseline = load(options.baseline)
        except SavedRunError as exc:
            raise pytest.UsageError(f"--mlab-compare: {exc}") from None
    config.pluginmanager.register(SavedRuns(config, options, baseline), "mlab-saved-runs")


class SavedRuns:
    """Saves, compares, gates and writes the markdown summary once the run is written."""

    def __init__(
        self, config: pytest.Config, options: SavedRunOptions, baseline: RunResults | None
    ) -> None:
        self.config = config
        self.options = options
        self.baseline = baseline
        self.report: GateReport | None = None
        self.lines: list[str] = []
        """Where the run was saved and the markdown written."""

    def pytest_report_header(self) -> str | None:
        if self.options.baseline is None:
            return None
        gate = ", ".join(str(limit) for limit in (*self.options.limits,
                                                   *filter(None, [self.options.drop])))
        return f"mlab: comparing with {self.options.baseline}" + (
            f"; gate {gate} at alpha {self.options.alpha:g}" if gate else ""
        ) + ("; without the trials the rule checks flagged" if self.options.leave_flagged
             else "")

    def detection_lines(self, specs: Iterable[TrialSpec]) -> list[str]:
        """Before the first trial: the smallest fall of success per group the gate could
        trip on with the selected trials, or that it cannot trip; and over the suite, the
        smallest fall of each agent's success and mean normalised score."""
        limit = next((lim for lim in self.options.limits if lim.metric == "success"), None)
        if self.baseline is None or (limit is None and self.options.drop is None):
            return []
        from pytest_mlab.analysis.detectable import detectable, detection_lines
        from pytest_mlab.analysis.groups import RAN, by_group
        from pytest_mlab.analysis.suite_detectable import (
            TaskHistory,
            suite_detection_lines,
            suite_falls,
        )
        from pytest_mlab.analysis.summary import normalised_scores

        current: dict[Group, set[int]] = {}
        for spec in specs:
            current.setdefault(Group(spec.task.name, spec.agent, spec.llm), set()).add(
                spec.trial)
        ran = {g: [r for r in rs if r.outcome in RAN]
               for g, rs in by_group(self.baseline.results).items()}
        lines = []
        if limit is not None:
            base = {g: {r.trial: r.success for r in rs} for g, rs in ran.items() if rs}
            metrics = len({lim.metric for lim in self.options.limits})
            found = detectable(base, current, self.options.alpha, metrics)
            lines += detection_lines(found, limit.fall, self.options.alpha,
                                     len(found) * metrics)
        history = {g: TaskHistory(sum(r.success for r in rs), len(rs), normalised_scores(rs))
                   for g, rs in ran.items()}
        falls = suite_falls(history, {g: len(t) for g, t in current.items()},
                            self.options.alpha)
        drop = self.options.drop
        return lines + suite_detection_lines(falls, self.options.alpha,
                                             drop.tolerance if drop else None)

    def pytest_mlab_run_written(
        self, session: pytest.Session, run: RunResults
    ) -> GateReport | None:
        report = None
        if self.baseline is not None and self.options.baseline is not None:
            report = compare(
                self.baseline, run, self.options.limits, alpha=self.options.alpha,
                pass_k=self.options.pass_k, drop=self.options.drop,
                any_containment=self.options.any_containment,
                leave_flagged=self.options.leave_flagged,
                baseline_name=_label(
                    self.options.baseline, self.options.storage.folder, self.config.rootpath
                ),
            )
            self.report = report
        if self.options.save is not None:
            saved = self.options.storage.save(run, self.options.save)
            self.lines.append(f"saved: {saved.path}")
        if self.options.markdown is not None:
            self.options.markdown.parent.mkdir(parents=True, exist_ok=True)
            self.options.markdown.write_text(
                markdown(run.run.run_id, run.results, report, self.options.pass_k))
            self.lines.append(f"markdown: {self.options.markdown}")
        if report is not None and report.gated:
            session.exitstatus = _gated_exit(session, run, report)
        return report

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.report is None and not self.lines:
            return
        terminalreporter.section("mlab saved runs")
        if self.report is not None:
            for line, failed in comparison_lines(self.report):
                terminalreporter.write_line(line, red=failed)
        for line in self.lines:
            terminalreporter.write_line(line)


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
