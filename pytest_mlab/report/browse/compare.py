"""Runs side by side per task: each run's agents as columns, with the gate's one-sided
tests of each column against the first where trials pair up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_mlab.analysis.containments import differs
from pytest_mlab.analysis.gate import compare
from pytest_mlab.analysis.metric_comparisons import Comparison
from pytest_mlab.core.results import RunResults, TrialResult
from pytest_mlab.report.browse.metrics import figures
from pytest_mlab.report.browse.runs import RunEntry, containment

TrialRef = tuple[int, TrialResult]


@dataclass(frozen=True)
class Series:
    """One agent x llm of one run: a column of the comparison."""

    entry: RunEntry
    run: RunResults
    agent: str
    llm: str | None
    trials: list[TrialRef]

    def header(self) -> dict[str, Any]:
        return {"run": self.entry.key, "run_id": self.run.run.run_id,
                "started": self.run.run.started, "agent": self.agent, "llm": self.llm,
                "containment": containment([r for _, r in self.trials])}

    def by_task(self) -> RunResults:
        """The series as a run whose groups are its tasks alone, for the gate."""
        anonymous = [r.model_copy(update={"agent": "", "llm": None}) for _, r in self.trials]
        return RunResults(run=self.run.run, results=anonymous)


def series_of(runs: list[tuple[RunEntry, RunResults]]) -> list[Series]:
    found = []
    for entry, run in runs:
        columns: dict[tuple[str, str | None], list[TrialRef]] = {}
        for index, result in enumerate(run.results):
            columns.setdefault((result.agent, result.llm), []).append((index, result))
        for (agent, llm), trials in sorted(columns.items(), key=lambda i: (i[0][0], i[0][1] or "")):
            found.append(Series(entry, run, agent, llm, trials))
    return found


def _test(comparison: Comparison) -> dict[str, Any]:
    return {"delta": comparison.delta, "p": comparison.p_value, "test": comparison.test,
            "paired": comparison.paired, "sizes": list(comparison.sizes),
            "judged_apart": comparison.judged_apart}


def _tests(first: Series, other: Series) -> dict[str, dict[str, Any]]:
    """Per task: the success and improvement tests of ``other`` against ``first``; runs
    of other containment too, which the page says (``containment_apart``)."""
    report = compare(first.by_task(), other.by_task(), any_containment=True)
    tests: dict[str, dict[str, Any]] = {}
    for comparison in report.comparisons:
        tests.setdefault(comparison.group.task, {})[comparison.metric] = _test(comparison)
    return tests


def _cell(series: Series, task: str, tests: dict[str, Any] | None) -> dict[str, Any] | None:
    trials = [(i, r) for i, r in series.trials if r.task == task]
    if not trials:
        return None
    return {
        **figures([r for _, r in trials]),
        "trial_list": [{"index": i, "trial": r.trial, "outcome": r.outcome,
                        "success": r.success} for i, r in trials],
        "tests": tests,
    }


def comparison(runs: list[tuple[RunEntry, RunResults]]) -> dict[str, Any]:
    """Rows per task, one cell per series; the first series is what the tests compare to."""
    series = series_of(runs)
    tests = [{} if i == 0 else _tests(series[0], s) for i, s in enumerate(series)]
    tasks = sorted({r.task for s in series for _, r in s.trials})
    rows = [
        {"task": task,
         "cells": [_cell(s, task, tests[i].get(task) if i else None)
                   for i, s in enumerate(series)]}
        for task in tasks
    ]
    return {"series": [s.header() for s in series], "rows": rows,
            "containment_apart": _apart(series)}


def _apart(series: list[Series]) -> list[str]:
    """Where a column ran under other containment than the first: the gate would refuse
    these tests; the page shows them with this warning."""
    if not series:
        return []
    first, lines = series[0], []
    for other in series[1:]:
        words = differs([r for _, r in first.trials], [r for _, r in other.trials])
        if words is not None:
            lines.append(f"{other.run.run.run_id} ran under {words[1]}, unlike "
                         f"{first.run.run.run_id} ({words[0]}): the gate would not compare "
                         "them")
    return sorted(set(lines))
