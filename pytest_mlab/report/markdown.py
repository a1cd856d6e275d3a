"""A markdown summary of a run for CI job summaries: results per group, then the comparison
with a saved run and the gate's verdict."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mlab.analysis.gate import GateReport
from pytest_mlab.core.plain_text import one_line
from pytest_mlab.core.results import TrialResult
from pytest_mlab.report.columns import columns, table
from pytest_mlab.report.rows import analogue_note, rows_of
from pytest_mlab.report.terminal import clean_lines, suite_lines


def _cell(text: str) -> str:
    return one_line(text).replace("|", "\\|")  # a line break would end the table


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_cell(cell) for cell in cells) + " |"


def results_table(results: Sequence[TrialResult], pass_k: int | None = None) -> list[str]:
    rows = rows_of(results, pass_k)
    header, *body = table(rows, "markdown")
    align = "|".join("---" if c.text else "---:" for c in columns("markdown", rows))
    note = analogue_note(rows)
    unclean = [f"**{line}**" for line in clean_lines(rows)]
    return [_row(header), f"|{align}|", *(_row(cells) for cells in body),
            *(["", note] if note else []), *(["", *suite] if (suite := suite_lines(rows)) else []),
            *(["", *unclean] if unclean else [])]


def comparison_table(report: GateReport) -> list[str]:
    lines = [
        f"### Compared with `{report.baseline_name}`", "",
        _row(("task", "agent", "llm", "metric", "baseline", "now", "change", "p", "p (Holm)",
              "test", "gate")),
        "|---|---|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for c in report.comparisons:
        lines.append(_row((
            c.group.task, c.group.agent, c.group.llm or "-", c.metric_text, c.baseline_text,
            c.current_text, c.delta_text, c.p_text, c.p_gate_text, c.test,
            "**tripped**" if c.failure else ("ok" if report.limits else "-"),
        )))
    for a in report.agents:
        lines.append(_row((
            "(suite)", a.agent, a.llm or "-", f"mean normalised ({a.tasks} tasks)",
            a.baseline_text, a.current_text, a.delta_text, "-", "-", "-",
            "**tripped**" if a.failure else ("ok" if report.drop else "-"),
        )))
    for label, groups in (("Not run now", report.only_baseline), ("New", report.only_current)):
        if groups:
            lines += ["", f"{label}: " + ", ".join(f"`{g.label}`" for g in groups)]
    if report.refused is not None and not report.gated:  # gated: it is the failure below
        lines += ["", f"**{report.refused}**"]
    if report.gated:
        lines.append("")
        if report.tripped:
            lines.append(f"**{report.summary}**")
            lines += [f"- `{failure}`" for failure in report.failures]
        else:
            lines.append(report.summary)
            lines += [f"- {line}" for line in report.powerless]
    return lines


def markdown(
    run_id: str, results: Sequence[TrialResult], report: GateReport | None,
    pass_k: int | None = None,
) -> str:
    lines = [f"## pytest-mlab run `{run_id}`", "", *results_table(results, pass_k)]
    if report is not None:
        lines += ["", *comparison_table(report)]
    return "\n".join(lines) + "\n"
