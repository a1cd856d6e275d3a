"""The terminal summary: per task x agent, success count and mean improvement."""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from pytest_mlab.results import TrialResult


def summary_lines(results: Iterable[TrialResult]) -> list[str]:
    groups: dict[tuple[str, str], list[TrialResult]] = {}
    for result in results:
        agent = result.agent + (f"/{result.llm}" if result.llm else "")
        groups.setdefault((result.task, agent), []).append(result)
    header = ("task", "agent", "success", "mean improvement", "errors", "skipped")
    rows = [header]
    for (task, agent), group in sorted(groups.items()):
        ran = [r for r in group if r.outcome in ("passed", "failed")]
        passed = sum(r.success for r in ran)
        gains = [r.improvement for r in ran if r.improvement is not None]
        mean_gain = f"{statistics.fmean(gains):+.1%}" if gains else "-"
        errors = sum(r.outcome == "error" for r in group)
        skipped = sum(r.outcome == "skipped" for r in group)
        rows.append((task, agent, f"{passed}/{len(ran)}", mean_gain, str(errors), str(skipped)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in rows]
