"""One trial: its record, where its files are (only ever inside its run's folder), its
traceback, its LLM calls (the gateway's tally, and how many calls its call log holds,
paged by ``call_pages``) and the trials of the same task it can be put beside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_mlab.core.plain_text import printable
from pytest_mlab.core.results import RunResults, TrialResult
from pytest_mlab.core.run_files import RunFiles, TrialFiles, safe_name
from pytest_mlab.core.text import clip
from pytest_mlab.report.browse.call_pages import count_calls
from pytest_mlab.report.browse.metrics import trial_row
from pytest_mlab.report.browse.runs import RunEntry, inside
from pytest_mlab.report.browse.trace_pages import count_steps

MAX_TRACEBACK = 20_000
MAX_CALLS = 1_000
"""LLM calls listed per trial; a trial that made more says how many were left out."""
MAX_MESSAGE = 4_000


def trial_files(entry: RunEntry, result: TrialResult) -> TrialFiles | None:
    """The trial's files in the run's own folder, by the trace's name alone: a record that
    names a path elsewhere (a moved run, or a forged record) is never followed."""
    if result.trace is None:
        files = RunFiles(entry.folder).trial(result.nodeid)
    else:
        files = TrialFiles(entry.folder, Path(result.trace).name.removesuffix(".jsonl"))
    if files.name in ("", ".", "..") or safe_name(files.name) != files.name:
        return None
    return files


def threshold_score(result: TrialResult) -> float | None:
    """The score the trial had to reach: the baseline moved by the threshold."""
    if result.baseline_mean is None:
        return None
    move = result.threshold * abs(result.baseline_mean)
    return result.baseline_mean + (move if result.direction == "higher" else -move)


def _read_text(entry: RunEntry, path: Path, limit: int) -> str | None:
    if not path.is_file() or not inside(entry, path):
        return None
    try:
        with path.open(encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read(limit * 2)
    except OSError as exc:
        return f"(cannot be read: {exc})"
    return printable(clip(text, limit))


def llm_calls(entry: RunEntry, files: TrialFiles) -> tuple[list[dict[str, Any]], int]:
    """The calls an external agent made through the gateway, one line each, and how many
    there were; in-process agents record their usage per step instead."""
    log = files.trace.with_name(files.name + ".llm-calls.jsonl")
    if not log.is_file() or not inside(entry, log):
        return [], 0
    calls: list[dict[str, Any]] = []
    total = 0
    with log.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            total += 1
            if len(calls) >= MAX_CALLS:
                continue
            try:
                call = json.loads(line)
            except ValueError:
                continue
            if isinstance(call, dict):
                calls.append({key: call.get(key) if isinstance(call.get(key), int | float)
                              else printable(str(call.get(key, "")))[:200]
                              for key in ("call", "step", "model", "tokens_in", "tokens_out",
                                          "cost")})
    return calls, total


def calls_log(entry: RunEntry, result: TrialResult) -> Path | None:
    """The trial's log of its model calls, whole (``llm/call_log.py``), if it has one."""
    files = trial_files(entry, result)
    if files is None or not files.calls.is_file() or not inside(entry, files.calls):
        return None
    return files.calls


def _siblings(run: RunResults, result: TrialResult) -> list[dict[str, Any]]:
    return [trial_row(i, r) for i, r in enumerate(run.results) if r.task == result.task]


def trial_detail(entry: RunEntry, run: RunResults, index: int) -> dict[str, Any]:
    result = run.results[index]
    files = trial_files(entry, result)
    record = result.model_dump(mode="json")
    record["message"] = clip(result.message, MAX_MESSAGE)
    traceback = None
    steps = 0
    calls: list[dict[str, Any]] = []
    total_calls = 0
    if files is not None:
        if result.traceback is not None or result.outcome == "error":
            traceback = _read_text(entry, files.traceback, MAX_TRACEBACK)
        if files.trace.is_file() and inside(entry, files.trace):
            steps = count_steps(files.trace)
        calls, total_calls = llm_calls(entry, files)
    log = calls_log(entry, result)
    return {
        "run": entry.key, "run_id": run.run.run_id, "index": index, "record": record,
        "normalised": result.normalised_score, "threshold_score": threshold_score(result),
        "traceback": traceback, "trace_steps": steps,
        "containment": result.containment.describe() if result.containment else "none recorded",
        "llm_calls": calls, "llm_calls_total": total_calls,
        "model_calls": count_calls(log) if log is not None else 0,
        "trials": len(run.results),
        "siblings": _siblings(run, result),
    }
