"""The layout of a run folder: the one place that knows where each file of a run lives.

    <report dir>/<run id>/
        results.json, report.html      written by the controller at the end
        llm-spend.log                  the session's LLM spending, one line per call
        session.json                   the session writing the run (core/session_owner.py)
        traces/<trial>.jsonl           each trial's steps
        traces/<trial>.calls.jsonl     each of its model calls, whole (llm/call_log.py)
        traces/<trial>.result.json     a judged trial's record, so a resumed run skips it
        traces/<trial>.progress.json   a running trial's latest step, for the live display
        traces/<trial>.traceback.txt   the agent's traceback, when it raised
        traces/<trial>.rules.json      what the rule checks know of the trial's task
        snapshots/objects/             file contents shared by every trial
        snapshots/<trial>/step-N.json  each trial's manifest per step
        workspaces/<trial>/            the trial's workspace (kept per --mlab-keep-workspaces)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

RUN_ID_VARIABLE = "MLAB_RUN_ID"
"""The run a session joins instead of starting its own: set for a Ray node's session for
one trial, which writes only that trial's record there."""
_RESULT = ".result.json"
_PROGRESS = ".progress.json"
CALLS = ".calls.jsonl"
SIDECARS = (CALLS, ".llm-calls.jsonl")
"""Other JSON-lines files beside the traces: a glob for traces leaves them out."""


def safe_name(text: str) -> str:
    """``text`` as a file name: runs of other characters become one underscore."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


@dataclass(frozen=True)
class TrialFiles:
    run_dir: Path
    name: str
    """File-name-safe trial id, unique within the run."""

    @property
    def trace(self) -> Path:
        return self.run_dir / "traces" / f"{self.name}.jsonl"

    @property
    def calls(self) -> Path:
        """Each model call of the trial, whole: messages, reply, tokens, cost, seconds."""
        return self.run_dir / "traces" / f"{self.name}{CALLS}"

    @property
    def result(self) -> Path:
        """Written when the trial is judged, so a resumed run can skip it."""
        return self.run_dir / "traces" / f"{self.name}{_RESULT}"

    @property
    def progress(self) -> Path:
        """The latest step, for the live display; the result file marks the end."""
        return self.run_dir / "traces" / f"{self.name}{_PROGRESS}"

    @property
    def workspace(self) -> Path:
        """Where the trial's workspace lives while it runs, and after if it is kept."""
        return self.run_dir / "workspaces" / self.name

    @property
    def traceback(self) -> Path:
        """The agent's traceback, when it raised."""
        return self.run_dir / "traces" / f"{self.name}.traceback.txt"

    @property
    def rule_facts(self) -> Path:
        """What the rule checks need beyond the trace and snapshots (``RuleFacts``)."""
        return self.run_dir / "traces" / f"{self.name}.rules.json"

    @property
    def manifests(self) -> Path:
        return self.run_dir / "snapshots" / self.name

    @property
    def objects(self) -> Path:
        return self.run_dir / "snapshots" / "objects"

    @classmethod
    def of_trace(cls, trace: Path) -> TrialFiles:
        """The files of the trial whose trace is ``trace``."""
        return cls(trace.parent.parent, trace.name.removesuffix(".jsonl"))


@dataclass(frozen=True)
class RunFiles:
    root: Path
    """``<report dir>/<run id>``."""

    @classmethod
    def of(cls, report_dir: Path, run_id: str) -> RunFiles:
        return cls(report_dir / run_id)

    @property
    def results(self) -> Path:
        return self.root / "results.json"

    @property
    def report(self) -> Path:
        return self.root / "report.html"

    @property
    def spend_ledger(self) -> Path:
        return self.root / "llm-spend.log"

    @property
    def owner(self) -> Path:
        """The session writing the run, as its first trial starts: a killed one leaves it."""
        return self.root / "session.json"

    @property
    def traces(self) -> Path:
        return self.root / "traces"

    def trial(self, trial_id: str) -> TrialFiles:
        """The files of the trial with this id (a node id or item name)."""
        return TrialFiles(self.root, safe_name(trial_id))

    def trial_traces(self) -> list[Path]:
        """Every trial's trace in the run, without the call logs beside them."""
        if not self.traces.is_dir():
            return []
        return sorted(path for path in self.traces.glob("*.jsonl")
                      if not path.name.endswith(SIDECARS))

    def running(self) -> Iterator[TrialFiles]:
        """Trials that have written progress but no result yet."""
        for path in sorted(self.traces.glob(f"*{_PROGRESS}")):
            files = TrialFiles(self.root, path.name.removesuffix(_PROGRESS))
            if not files.result.exists():
                yield files
