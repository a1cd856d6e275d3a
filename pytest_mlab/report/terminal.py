"""The terminal summary: the report's table, row for row, in plain text."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mlab.report import format as fmt
from pytest_mlab.report.rows import Row
from pytest_mlab.core.text import aligned

HEADER = ("task", "agent", "success", "95% CI", "valid", "mean improvement", "steps", "time",
          "tokens", "cost", "errors", "skipped")


def summary_lines(rows: Sequence[Row]) -> list[str]:
    """One line per row of the report (rates over trials that ran; means per trial that ran)."""
    table = [HEADER]
    for row in rows:
        table.append((
            row.task, row.label, f"{row.passed}/{row.ran}",
            fmt.interval(row.success_low, row.success_high), fmt.percent(row.valid_rate),
            fmt.percent(row.mean_improvement, signed=True), fmt.count(row.mean_steps),
            fmt.seconds(row.mean_seconds), fmt.count(row.mean_tokens), fmt.money(row.mean_cost),
            str(row.errors), str(row.skipped),
        ))
    return aligned(table)
