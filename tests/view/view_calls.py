"""A run whose first trial logged its model calls the way the client logs them
(``CallLog``): a few under its steps, one past its last step, one with a long prompt."""

from __future__ import annotations

from pathlib import Path

from view_runs import HOSTILE, trial_result, write_run, write_steps

from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.llm.call_log import CallFacts, CallLog
from pytest_mlab.llm.usage import Completion, ToolCall, Usage

LONG = 100_000
"""Characters of the long prompt: past what a page sends of one text."""
REPLY = "<b>x</b> is the answer"


def _call(log: CallLog, step: int, role: str, prompt: str, reply: str | None, *,
          cached: bool = False, error: str | None = None) -> None:
    completion = None if reply is None else Completion(
        reply, (ToolCall("list_files", '{"dir_path": "."}'),) if role == "fast" else (),
        Usage(1000 * step, 10 * step, 0.001 * step, 1), f"{role}-model")
    log.record(CallFacts(step, role, f"{role}-model", [{"role": "user", "content": prompt}]),
               completion=completion, seconds=0.5, cached=cached, error=error)


def calls_run(report_dir: Path, extra_calls: int = 0) -> Path:
    """Run "calls": trial 0 has 3 steps and 5 calls (main and fast at step 1, a cached
    edit and a long main prompt at step 2, a failed call at step 4); trial 1 has none.
    ``extra_calls`` more at step 3, for paging."""
    results = [trial_result("house-price", "react", t, success=t == 0, improvement=0.2)
               for t in range(2)]
    run_dir = write_run(report_dir, "calls", [])
    for result in results:
        write_steps(run_dir, result, 3)
    log = CallLog(RunFiles(run_dir).trial(results[0].nodeid).calls)
    _call(log, 1, "main", f"think about it {HOSTILE}", REPLY)
    _call(log, 1, "fast", "summarise the fast-model notes", "a summary")
    _call(log, 2, "edit", "edit train.py", "edited", cached=True)
    _call(log, 2, "main", "L" * LONG + " the end", "long answer")
    for n in range(extra_calls):
        _call(log, 3, "main", f"extra call {n}", f"extra reply {n}")
    _call(log, 4, "main", "one more", None, error="BudgetExceeded: token budget spent")
    write_run(report_dir, "calls", results)
    return run_dir
