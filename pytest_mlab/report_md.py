"""A markdown summary of a run for CI job summaries: results per group, then the comparison
with a saved run and the gate's verdict."""

from __future__ import annotations

from collections.abc import Sequence
from math import fsum

from pytest_mlab.gate import RAN, GateReport, by_group, verdict_line
from pytest_mlab.results import TrialResult


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_cell(cell) for cell in cells) + " |"


def results_table(results: Sequence[TrialResult]) -> list[str]:
    lines = [
        _row(("task", "agent", "llm", "success", "mean improvement", "errors", "skipped")),
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for group, trials in by_group(results).items():
        ran = [r for r in trials if r.outcome in RAN]
        gains = [r.improvement for r in ran if r.improvement is not None]
        lines.append(_row((
            group.task, group.agent, group.llm or "-",
            f"{sum(r.success for r in ran)}/{len(ran)}",
            f"{fsum(gains) / len(gains):+.1%}" if gains else "-",
            str(sum(r.outcome == "error" for r in trials)),
            str(sum(r.outcome == "skipped" for r in trials)),
        )))
    return lines


def comparison_table(report: GateReport) -> list[str]:
    lines = [
        f"### Compared with `{report.baseline_name}`", "",
        _row(("task", "agent", "llm", "metric", "baseline", "now", "change", "p", "p (Holm)",
              "test", "gate")),
        "|---|---|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for c in report.comparisons:
        lines.append(_row((
            c.group.task, c.group.agent, c.group.llm or "-", c.metric, c.baseline_text,
            c.current_text, c.delta_text, c.p_text, c.p_gate_text, c.test,
            "**tripped**" if c.failure else ("ok" if report.limits else "-"),
        )))
    for label, groups in (("Not run now", report.only_baseline), ("New", report.only_current)):
        if groups:
            lines += ["", f"{label}: " + ", ".join(f"`{g.label}`" for g in groups)]
    if report.limits:
        lines.append("")
        if report.tripped:
            lines.append(f"**{verdict_line(report)}**")
            lines += [f"- `{failure}`" for failure in report.failures]
        else:
            lines.append(verdict_line(report))
    return lines


def markdown(run_id: str, results: Sequence[TrialResult], report: GateReport | None) -> str:
    lines = [f"## pytest-mlab run `{run_id}`", "", *results_table(results)]
    if report is not None:
        lines += ["", *comparison_table(report)]
    return "\n".join(lines) + "\n"
