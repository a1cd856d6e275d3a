"""The terminal's tables: the report's rows, and the comparison with a saved run."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_mlab.analysis.gate import GateReport
from pytest_mlab.analysis.summary import agent_summaries
from pytest_mlab.core.text import aligned, plural
from pytest_mlab.report.rows import Row, analogue_note
from pytest_mlab.report.terminal_table import terminal_table

if TYPE_CHECKING:
    from pytest_mlab.core.results import RunInfo


def summary_lines(rows: Sequence[Row], width: int | None = None,
                  verbose: bool = False) -> list[str]:
    """One line per row of the report (rates over trials that ran; means per trial that
    ran), in ``width`` characters where given (see terminal_table.py)."""
    note = analogue_note(rows)
    shown = terminal_table(rows, width, verbose)
    return (shown.table + ([note] if note else []) + shown.note + suite_lines(rows)
            + clean_lines(rows) + shown.more)


def clean_lines(rows: Sequence[Row]) -> list[str]:
    """Where a trial ended in a harness error: the run is not clean, and how the figures
    with errors count them."""
    errors = sum(row.errors for row in rows)
    if not errors:
        return []
    return [f"run not clean: {plural(errors, 'trial')} ended in a harness "
            "error; the 'w/ errors' columns count each as a failed trial (0 normalised)"]


def _spread(low: float | None, high: float | None, share: float | None, form: str) -> str:
    """A suite figure's 95% interval and where its variance comes from."""
    if low is None or high is None:
        return ""
    split = ("" if share is None else
             f", variance {share:.0%} from the tasks, {1 - share:.0%} from the trials")
    return f", 95% CI [{low:{form}}, {high:{form}}]{split}"


def suite_lines(rows: Sequence[Row]) -> list[str]:
    """Per agent, the suite's success rate and mean normalised score (the mean over tasks
    of each task's), each with its interval over tasks and trials within them; the latter
    where a task has one, and again with the errors counted as 0 where a trial errored."""
    lines = []
    for a in agent_summaries(rows):
        name = f"{a.agent}{'/' + a.llm if a.llm else ''}"
        if a.success_rate is not None and len({r.task for r in rows}) > 1:
            lines.append(f"suite success {name}: {a.success_rate:.0%} over the tasks"
                         + _spread(a.success_low, a.success_high, a.success_tasks_share, ".0%"))
        if a.mean_normalised is None:
            continue
        lines.append(
            f"mean normalised score {name}: {a.mean_normalised:.2f} over {plural(a.tasks, 'task')}"
            + (f" (none for {', '.join(a.tasks_without)})" if a.tasks_without else "")
            + _spread(a.normalised_low, a.normalised_high, a.normalised_tasks_share, ".2f")
            + (f"; {a.mean_normalised_with_errors:.2f} with errors as 0"
               if a.mean_normalised_with_errors is not None else "")
            + apart_note(a.tasks_reference_apart, a.tasks))
    return lines


def apart_note(apart: Sequence[str], tasks: int) -> str:
    """Says how many of a mean's tasks had their reference measured elsewhere than their
    baseline (another machine or data key): a scale of two places."""
    if not apart:
        return ""
    return (f"; the reference of {len(apart)} of the {plural(tasks, 'task')} was measured on "
            f"another machine or data than their baseline ({', '.join(apart)}): "
            "--mlab-reference=here measures it where the baseline is")


def comparison_lines(report: GateReport) -> list[tuple[str, bool]]:
    """The comparison table, then the gate's verdict; each line with whether it failed."""
    header = ("group", "metric", "baseline", "now", "change", "p", "p (Holm)", "test", "")
    rows = [header]
    for c in report.comparisons:
        rows.append((c.group.label, c.metric_text, c.baseline_text, c.current_text, c.delta_text,
                     c.p_text, c.p_gate_text, c.test, "TRIPPED" if c.failure else ""))
    lines = [(f"compared with {report.baseline_name}", False)]
    lines += [(line, "TRIPPED" in line) for line in aligned(rows)]
    suite = [("agent", "mean normalised score", "baseline", "now", "change", "tasks", "")]
    suite += [(a.label, "over the suite", a.baseline_text, a.current_text, a.delta_text,
               str(a.tasks), "TRIPPED" if a.failure else "") for a in report.agents]
    lines += [(line, "TRIPPED" in line) for line in aligned(suite)] if report.agents else []
    lines += [(f"{c.group.label}: success and pass@k not compared, judged by other rules "
               f"({c.judged_apart})", True)
              for c in report.comparisons if c.metric == "success" and c.judged_apart]
    for label, groups in (("not run now", report.only_baseline), ("new", report.only_current)):
        if groups:
            lines.append((f"{label}: {', '.join(g.label for g in groups)}", False))
    if report.refused is not None and not report.gated:  # gated: it is the failure below
        lines.append((report.refused, True))
    if report.gated:
        if report.tripped:
            lines += [(failure, True) for failure in report.failures]
        else:
            lines.append((report.summary, not report.comparisons or bool(report.powerless)))
            lines += [(line, True) for line in report.powerless]
    return lines


def run_lines(run: RunInfo, results: Path, report: Path) -> list[tuple[str, bool]]:
    """Where the run was written, the command that browses it beside the others in its
    reports folder, and whether it finished; each line with whether it is a warning."""
    lines = [(f"results: {results}", False), (f"report: {report}", False),
             (f"view: python -m pytest_mlab view {shlex.quote(str(report.parent.parent))}",
              False)]
    if not run.complete:
        why = "it was interrupted" if run.interrupted else "a worker crashed"
        lines.append((f"run incomplete ({why}): not every selected trial reached its verdict; "
                      f"resume with: {run.resume_command}", True))
    return lines


def isolation_lines(named: str | None, used: Sequence[str]) -> list[tuple[str, bool]]:
    """A warning where trials ran under an isolation other than the one the header named,
    which is a probe of the controller's machine: a Ray node's own probe may find less."""
    if named is None or all(level == named for level in used):
        return []
    return [(f"isolation: the header named {named} (this machine's); the trials ran under "
             f"{', '.join(used)}: each trial's own is in the report", True)]
