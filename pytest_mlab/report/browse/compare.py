"""Runs side by side, like with like: a column per run, a row per task x agent x llm, and
in each row every run's group tested against the same group of the reference run (the
gate's one-sided tests, paired where the trial numbers match). The reference is the one
asked for, else the saved run the gate compares with where it is among them, else the
first run asked for."""

from __future__ import annotations

from typing import Any

from pytest_mlab.analysis.containments import differs
from pytest_mlab.analysis.gate import compare
from pytest_mlab.analysis.metric_comparisons import Comparison
from pytest_mlab.core.results import RunResults, TrialResult
from pytest_mlab.report.browse.metrics import figures
from pytest_mlab.report.browse.runs import RunEntry, containment

GroupKey = tuple[str, str, str | None]
"""task, agent, llm."""
Run = tuple[RunEntry, RunResults]


def _test(comparison: Comparison) -> dict[str, Any]:
    # The texts are the terminal's own for the change and its p, so both read the same.
    return {"delta": comparison.delta, "delta_text": comparison.delta_text,
            "p": comparison.p_value, "p_text": comparison.p_text, "test": comparison.test,
            "paired": comparison.paired, "sizes": list(comparison.sizes),
            "judged_apart": comparison.judged_apart}


def _tests(reference: RunResults, other: RunResults) -> dict[GroupKey, dict[str, Any]]:
    """Per group both runs hold: the success and improvement tests of ``other`` against
    ``reference``; runs of other containment too, which the page says (``containment_apart``)."""
    report = compare(reference, other, any_containment=True)
    tests: dict[GroupKey, dict[str, Any]] = {}
    for c in report.comparisons:
        if c.metric in ("success", "improvement"):
            tests.setdefault((c.group.task, c.group.agent, c.group.llm), {})[c.metric] = _test(c)
    return tests


def _groups(run: RunResults) -> dict[GroupKey, list[tuple[int, TrialResult]]]:
    found: dict[GroupKey, list[tuple[int, TrialResult]]] = {}
    for index, result in enumerate(run.results):
        found.setdefault((result.task, result.agent, result.llm), []).append((index, result))
    return found


def _cell(trials: list[tuple[int, TrialResult]] | None,
          tests: dict[str, Any] | None) -> dict[str, Any] | None:
    if not trials:
        return None
    return {
        **figures([r for _, r in trials]),
        "trial_list": [{"index": i, "trial": r.trial, "outcome": r.outcome,
                        "success": r.success, "ended_by": r.ended_by} for i, r in trials],
        "tests": tests,
    }


def reference_of(runs: list[Run], asked: str | None, gate_baseline: str | None) -> int:
    """Which run the others are tested against (its place in ``runs``)."""
    keys = [entry.key for entry, _ in runs]
    if asked in keys:
        return keys.index(asked)
    ids = [run.run.run_id for _, run in runs]
    return ids.index(gate_baseline) if gate_baseline in ids else 0


def _header(entry: RunEntry, run: RunResults, saved: dict[str, str]) -> dict[str, Any]:
    return {"run": entry.key, "run_id": run.run.run_id, "started": run.run.started,
            "saved": saved.get(run.run.run_id), "containment": containment(run.results)}


def comparison(runs: list[Run], asked: str | None = None, gate_baseline: str | None = None,
               saved: dict[str, str] | None = None) -> dict[str, Any]:
    """A row per group of any run, a cell per run (None where the run lacks the group)."""
    if not runs:
        return {"columns": [], "reference": 0, "rows": [], "containment_apart": []}
    ref = reference_of(runs, asked, gate_baseline)
    reference = runs[ref][1]
    groups = [_groups(run) for _, run in runs]
    tests = [{} if i == ref else _tests(reference, run) for i, (_, run) in enumerate(runs)]
    keys = sorted({key for found in groups for key in found},
                  key=lambda k: (k[0], k[1], k[2] or ""))
    rows = [{"task": task, "agent": agent, "llm": llm,
             "cells": [_cell(found.get((task, agent, llm)), tests[i].get((task, agent, llm)))
                       for i, found in enumerate(groups)]}
            for task, agent, llm in keys]
    return {"columns": [_header(entry, run, saved or {}) for entry, run in runs],
            "reference": ref, "rows": rows,
            "containment_apart": _apart(reference, [run for _, run in runs])}


def _apart(reference: RunResults, runs: list[RunResults]) -> list[str]:
    """Where a run ran under other containment than the reference: the gate would refuse
    these tests; the page shows them with this warning."""
    lines = []
    for other in runs:
        if other is reference:
            continue
        words = differs(reference.results, other.results)
        if words is not None:
            lines.append(f"{other.run.run_id} ran under {words[1]}, unlike "
                         f"{reference.run.run_id} ({words[0]}): the gate would not compare "
                         "them")
    return sorted(set(lines))
