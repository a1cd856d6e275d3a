"""Each trial's record rides on its test report (JSON in ``user_properties``), so that it
reaches the controller of -n; a trial that never reached its verdict gets one too."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.core.plain_text import hanging, one_line, printable
from pytest_mlab.plugin.keys import RESULT_KEY, SETTINGS_KEY, TRIAL_KEY

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult

PROPERTY = "mlab_result"


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def _junit_properties(result: TrialResult) -> list[tuple[str, object]]:
    """The numbers CI tools read from --junitxml, one <property> each; absent ones left out."""
    values: dict[str, object] = {
        "score": result.score, "baseline": result.baseline_mean,
        "improvement": result.improvement, "normalised": result.normalised_score,
        "steps": result.steps,
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


def _plain_entry(entry: Any) -> None:
    """A traceback entry whose lines start only where pytest starts them: an exception's
    words hang under its first line (long and short styles mark each line ``E`` already)."""
    if entry.style == "native":
        # One chunk per frame (indented) or per exception's words (at the margin).
        entry.lines = [printable(chunk) if chunk[:1].isspace() else hanging(chunk)
                       for chunk in entry.lines]
    elif entry.style == "value":
        entry.lines = hanging("\n".join(entry.lines)).split("\n")
    else:
        entry.lines = [printable(line) for line in entry.lines]


def one_line_report(report: pytest.TestReport) -> None:
    """The report of a trial with no line of text from the agent, its model, a script or
    a scorer at the start of a line of pytest's output or the JUnit XML: the one-line
    message (the short summary's, the XML's) escapes its line breaks, and a longer text
    (a scorer's traceback) hangs under its first line."""
    longrepr: Any = report.longrepr
    if isinstance(longrepr, str):
        report.longrepr = hanging(longrepr)
    elif isinstance(longrepr, tuple):  # a skip: (file, line, reason)
        path, line, reason = longrepr
        report.longrepr = (path, line, one_line(reason))
    elif hasattr(longrepr, "reprtraceback"):  # pytest's own: an exception, or a chain
        chain = getattr(longrepr, "chain", [(longrepr.reprtraceback, None, None)])
        for traceback, crash, _ in chain:
            for entry in traceback.reprentries:
                _plain_entry(entry)
            if crash is not None:
                crash.message = one_line(crash.message)
        if longrepr.reprcrash is not None:
            longrepr.reprcrash.message = one_line(longrepr.reprcrash.message)


def _setup_error(typename: str, message: str, error_class: str | None) -> str:
    """A trial's error in words; a timeout says so first, and why pytest calls it an error
    at setup (the trial runs in its item's setup, its fixtures)."""
    if error_class == "Timeout":
        return (f"timed out: {message}\n(a trial runs in its item's setup: hence pytest's "
                "'ERROR at setup' for a trial that timed out)")
    return f"{typename}: {message}"


class TrialRecords:
    """Puts each trial's record on its report, wherever the trial runs."""

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
            if result is None:
                result = _unrun_result(item, report, call)
            report.user_properties.append((PROPERTY, result.model_dump_json()))
            item.user_properties.extend(_junit_properties(result))
            excinfo = call.excinfo
            fulltrace = item.config.getoption("fulltrace", False)
            if excinfo and isinstance(excinfo.value, InfrastructureError) and not fulltrace:
                # The harness's own frames would only hide the cause; the message
                # carries the task code's traceback where there is one.
                report.longrepr = _setup_error(excinfo.typename, str(excinfo.value),
                                               result.error_class)
        one_line_report(report)
        return report
