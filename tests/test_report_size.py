"""A large run's report.html: past a budget of detail, trials are listed by their record
alone, and the report says how many, which and where the rest are
(tests/benchmarks/test_scale.py measures it at 10,000 trials)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_mlab.core.results import RunInfo, RunResults, TrialResult
from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.core.trace import Step, Trace
from pytest_mlab.report import model as report_model
from pytest_mlab.report.html import render
from pytest_mlab.report.model import build_report, in_turn, trial_views

TASKS, AGENTS, TRIALS = ("house-price", "titanic"), ("baseline", "oracle"), 3


def _run(run_dir: Path) -> RunResults:
    """2 tasks x 2 agents x 3 trials, each with a trace of two steps; one errored."""
    records = []
    for task in TASKS:
        for agent in AGENTS:
            for trial in range(TRIALS):
                record = TrialResult(
                    nodeid=f"tasks/{task}/task.toml::{task}[{agent}-t{trial}]", task=task,
                    agent=agent, llm=None, trial=trial, metric="mae", direction="lower",
                    outcome="passed" if agent == "oracle" else "failed",
                    success=agent == "oracle", score=40.0, baseline_mean=50.0,
                    improvement=0.2, threshold=0.1, message=f"{task} {agent} t{trial}")
                files = RunFiles(run_dir).trial(record.nodeid)
                trace = Trace(files.trace)
                for n in (1, 2):
                    trace.append(Step(n, "List Files", {"dir_path": "."}, f"seen {n}", 0.0,
                                      1.0))
                record.trace = str(files.trace)
                records.append(record)
    records[-1] = records[-1].model_copy(update={
        "outcome": "error", "success": False, "score": None, "improvement": None,
        "error_class": "ScorerError", "message": "titanic: ScorerError: exited 1"})
    info = RunInfo(run_id="big", started="s", finished="f", command=["pytest"], machine="m",
                   pytest_mlab_version="0")
    return RunResults(run=info, results=records)


def _run_records() -> list[TrialResult]:
    return [TrialResult(nodeid=f"{task}[{agent}-t{trial}]", task=task, agent=agent, llm=None,
                        trial=trial, metric="m", direction="higher", outcome="failed",
                        success=False, threshold=0.1)
            for task in TASKS for agent in AGENTS for trial in range(TRIALS)]


def test_trials_come_in_turn_the_first_of_each_group_then_the_second() -> None:
    records = _run_records()
    order = [(records[n].task, records[n].agent, records[n].trial) for n in in_turn(records)]
    groups = len(TASKS) * len(AGENTS)
    assert {trial for _, _, trial in order[:groups]} == {0}
    assert len({(task, agent) for task, agent, _ in order[:groups]}) == groups
    assert [trial for _, _, trial in order] == sorted(trial for _, _, trial in order)


def test_a_budget_keeps_the_first_trials_of_each_group_whole_and_lists_the_rest(
    tmp_path: Path,
) -> None:
    records = sorted(_run(tmp_path).results, key=lambda r: r.nodeid)
    everything, none_listed = trial_views(records, tmp_path, 10**9)
    assert len(everything) == len(records) and none_listed == []
    size = max(len(view.model_dump_json()) for view in everything)
    full, listed = trial_views(records, tmp_path, 5 * size)
    # The first trial of each of the four groups, then the second of the first.
    assert sorted(view.result.trial for view in full) == [0, 0, 0, 0, 1]
    assert len(full) + len(listed) == len(records)
    anchors = [view.anchor for view in full] + [row.anchor for row in listed]
    assert sorted(anchors) == sorted(f"trial-{n}" for n in range(len(records)))
    for part in (full, listed):
        assert [v.result.nodeid for v in part] == sorted(v.result.nodeid for v in part)
    (first,), rest = trial_views(records, tmp_path, 0)  # the first is always whole
    assert first.trace.steps and len(rest) == len(records) - 1


def test_the_report_says_how_many_trials_it_shows_whole_and_where_the_rest_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = _run(tmp_path)
    whole = build_report(run, tmp_path)
    assert whole.listed == [] and "are shown in full" not in render(whole)
    monkeypatch.setattr(report_model, "DETAIL_BUDGET", 1)
    model = build_report(run, tmp_path)
    assert len(model.trials) == 1 and len(model.listed) == len(run.results) - 1
    assert model.results() == sorted(run.results, key=lambda r: r.nodeid)
    html = render(model)
    assert f"1 of the {len(run.results)} trials are shown in full" in html
    assert f"The other {len(model.listed)} are listed after them" in html
    assert f"<code>{tmp_path}/traces</code>" in html
    assert f"python -m pytest_mlab view {tmp_path}" in html
    assert html.count('<details class="trial"') == 1
    rows = re.findall(r'<tr class="trial-row" id="(trial-\d+)" data-outcome="(\w+)">', html)
    assert len(rows) == len(model.listed)
    assert ("trial-11", "error") in rows and "titanic: ScorerError: exited 1" in html
    # Every figure of the run is still over every trial.
    assert f"{len(run.results)} trials:" in html and "1 error</span>" in html
