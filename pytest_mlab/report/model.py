"""The report's model: everything report.html shows, built from results.json and the run folder.

Every number the report prints is in this model, so a test can check it before the HTML.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from pytest_mlab.analysis.gate import GateReport
from pytest_mlab.analysis.summary import agent_summaries
from pytest_mlab.core.plain_text import printable
from pytest_mlab.core.results import Outcome, RunInfo, RunResults, TrialResult
from pytest_mlab.core.run_files import TrialFiles
from pytest_mlab.core.summary import AgentSummary
from pytest_mlab.core.text import clip
from pytest_mlab.report.rows import Row, analogue_note, label, rows_of
from pytest_mlab.report.steps import TraceView, trace_view

OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "error", "skipped")
MAX_TRACEBACK = 20_000
DETAIL_BUDGET = 5_000_000
"""Characters (as JSON) of the trials report.html shows in full, with their traces; past
it the other trials are listed by their record alone, so that a run of 10,000 trials is a
file a browser opens (under 20 MB; tests/benchmarks/test_scale.py)."""


class Header(BaseModel):
    run: RunInfo
    agents: list[str]
    llms: list[str]
    isolation: list[str]
    """The isolation levels trials actually ran under (a plugin's sandbox may differ)."""
    outcomes: dict[str, int]
    unreproduced: int = 0
    """Trials that ran and were unreproduced, whatever their outcome."""
    trials: int
    seconds: float
    tokens: int
    cost: float


class TrialView(BaseModel):
    anchor: str
    label: str
    result: TrialResult
    trace: TraceView
    traceback: str | None = None
    """The agent's traceback, when it raised."""


class ListedTrial(BaseModel):
    """A trial past ``DETAIL_BUDGET``: one row of its record's figures."""

    anchor: str
    label: str
    result: TrialResult


class ReportModel(BaseModel):
    header: Header
    rows: list[Row]
    analogue_note: str | None = None
    """What the mark on analogue tasks means, when the table holds any."""
    tasks: list[str]
    labels: list[str]
    """Agent (with LLM) labels in the order charts and tables use."""
    trials: list[TrialView]
    """The trials shown in full, in the order of their node ids."""
    listed: list[ListedTrial] = []
    """The trials past ``DETAIL_BUDGET``, by their record alone."""
    folder: str | None = None
    """The run folder: where the traces of the listed trials are."""
    agents: list[AgentSummary] = []
    """Each agent x llm's mean normalised score over the suite."""
    comparison: GateReport | None = None
    """The comparison with a saved run (--mlab-compare) and the gate's verdict."""
    errors: int = 0
    """Trials that ended in a harness error: the run is not clean where there are any."""

    def results(self) -> list[TrialResult]:
        """Every trial's record, shown in full or listed, in the order of their node ids."""
        shown = [t.result for t in self.trials] + [t.result for t in self.listed]
        return sorted(shown, key=lambda r: r.nodeid)


def _trace_view(result: TrialResult, run_dir: Path | None) -> TraceView:
    if result.trace is None:
        return TraceView(note="no trace: the trial never started")
    files = TrialFiles.of_trace(Path(result.trace))
    # A copied or moved run folder still finds its own traces and snapshots.
    if run_dir is not None and TrialFiles(run_dir, files.name).trace.exists():
        files = TrialFiles(run_dir, files.name)
    return trace_view(files.trace, files.manifests, files.objects)


def _traceback(result: TrialResult) -> str | None:
    if result.traceback is None:
        return None
    try:
        text = Path(result.traceback).read_text(encoding="utf-8", errors="surrogateescape")
        return printable(clip(text, MAX_TRACEBACK))
    except OSError:
        return f"(the traceback file {result.traceback} is gone)"


def in_turn(records: Sequence[TrialResult]) -> list[int]:
    """The indices of ``records``: the first trial of each task x agent x llm, then the
    second of each, and so on."""
    seen: Counter[tuple[str, str, str | None]] = Counter()
    places = []
    for n, r in enumerate(records):
        places.append((seen[r.task, r.agent, r.llm], n))
        seen[r.task, r.agent, r.llm] += 1
    return [n for _, n in sorted(places)]


def trial_views(records: Sequence[TrialResult], run_dir: Path | None,
                budget: int = DETAIL_BUDGET) -> tuple[list[TrialView], list[ListedTrial]]:
    """The trials in full, taken in turn (``in_turn``) until their views would pass
    ``budget`` characters (the first always), and the others listed; each in node id order.
    A listed trial's trace is never read."""
    full: dict[int, TrialView] = {}
    spent = 0
    for n in in_turn(records):
        r = records[n]
        view = TrialView(anchor=f"trial-{n}", label=label(r.agent, r.llm), result=r,
                         trace=_trace_view(r, run_dir), traceback=_traceback(r))
        spent += len(view.model_dump_json())
        if spent > budget and full:
            break
        full[n] = view
    listed = [ListedTrial(anchor=f"trial-{n}", label=label(r.agent, r.llm), result=r)
              for n, r in enumerate(records) if n not in full]
    return [full[n] for n in sorted(full)], listed


def build_report(
    results: RunResults, run_dir: Path | None = None, comparison: GateReport | None = None,
    pass_k: int | None = None,
) -> ReportModel:
    """``run_dir`` holds the run's traces/ and snapshots/; None reads them where recorded.
    ``pass_k``: the k of pass@k (None: the trials each group ran)."""
    records = sorted(results.results, key=lambda r: r.nodeid)
    rows = rows_of(records, pass_k)
    counts = Counter(r.outcome for r in records)
    header = Header(
        run=results.run,
        agents=sorted({r.agent for r in records}),
        llms=sorted({r.llm for r in records if r.llm}),
        isolation=sorted({r.isolation for r in records if r.isolation}),
        outcomes={outcome: counts[outcome] for outcome in OUTCOMES},
        unreproduced=sum(r.unreproduced for r in records),
        trials=len(records),
        seconds=sum(r.seconds for r in records),
        tokens=sum(r.tokens_in + r.tokens_out for r in records),
        cost=sum(r.cost for r in records),
    )
    trials, listed = trial_views(records, run_dir, DETAIL_BUDGET)
    return ReportModel(
        header=header, rows=rows, analogue_note=analogue_note(rows),
        tasks=sorted({r.task for r in records}),
        labels=sorted({row.label for row in rows}), trials=trials, listed=listed,
        folder=None if run_dir is None else str(run_dir), comparison=comparison,
        agents=agent_summaries(rows), errors=counts["error"],
    )
