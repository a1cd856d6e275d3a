"""Containment on the records: the gate refuses runs of different containment unless told,
old runs load as of unknown containment, and report.html, the terminal, markdown and the
run browser show it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markupsafe import escape

from pytest_mlab.analysis.gate import Limit, compare
from pytest_mlab.core.containment import UNKNOWN, Containment, describe_run
from pytest_mlab.core.results import RunInfo, RunResults, TrialResult
from pytest_mlab.report.browse.compare import comparison
from pytest_mlab.report.browse.runs import RunIndex, run_table
from pytest_mlab.report.browse.trial import trial_detail
from pytest_mlab.report.html import render
from pytest_mlab.report.markdown import comparison_table
from pytest_mlab.report.model import build_report
from pytest_mlab.report.terminal import comparison_lines

BWRAP = Containment(kind="local", isolation="bwrap", uid_map="65534 -> a host uid of its own",
                    seccomp="filter (2) in every process", network="lo only",
                    attestation_id="aaaaaaaaaaaa")
NONE = Containment(kind="local", isolation="none", uid_map="host root (no user namespace)",
                   seccomp="modes 0, 2 (not every process filtered)", network="eth0, lo",
                   attestation_id="bbbbbbbbbbbb", weak=True)


def _run(containment: Containment | None, ok: bool = True, run_id: str = "r") -> RunResults:
    results = [
        TrialResult(nodeid=f"t[{n}]", task="titanic", agent="react", llm=None, trial=n,
                    metric="accuracy", direction="higher", outcome="passed" if ok else "failed",
                    success=ok, improvement=0.2 if ok else 0.0, threshold=0.1,
                    containment=containment)
        for n in range(6)
    ]
    info = RunInfo(run_id=run_id, started="s", finished="f", command=["pytest"], machine="m",
                   pytest_mlab_version="0")
    return RunResults(run=info, results=results)


REFUSED = ("gate refuses to compare: 0001_base.json ran under local/bwrap (uid 65534 -> a host "
           "uid of its own, seccomp filter (2) in every process, network lo only), this run "
           "under local/none (uid host root (no user namespace), seccomp modes 0, 2 (not every "
           "process filtered), network eth0, lo); compare runs of one containment, or add "
           "--mlab-compare-any-containment")


def test_the_gate_refuses_runs_of_different_containment_with_one_sentence() -> None:
    report = compare(_run(BWRAP), _run(NONE, ok=False), (Limit("success", 0.1),),
                     baseline_name="0001_base.json")
    assert report.comparisons == [] and report.refused == REFUSED
    assert (report.tripped, report.failures, report.summary) == (True, [REFUSED], REFUSED)
    assert (REFUSED, True) in comparison_lines(report)
    told = compare(_run(BWRAP), _run(NONE, ok=False), (Limit("success", 0.1),),
                   any_containment=True)
    assert told.refused is None and told.tripped
    assert told.failures[0].startswith("gate tripped: titanic/react success 6/6 -> 0/6")


def test_without_a_limit_the_refusal_is_shown_but_fails_nothing() -> None:
    report = compare(_run(BWRAP), _run(NONE), baseline_name="0001_base.json")
    assert not report.gated
    assert comparison_lines(report)[-1] == (REFUSED, True)
    assert comparison_table(report)[-1] == f"**{REFUSED}**"


def test_only_what_the_containment_is_counts_not_the_attestation() -> None:
    again = BWRAP.model_copy(update={"attestation_id": "cccccccccccc"})
    assert compare(_run(BWRAP), _run(again)).refused is None


def test_an_old_run_is_of_unknown_containment_and_matches_only_another(tmp_path: Path) -> None:
    old = _run(BWRAP).model_dump(mode="json")
    old["schema_version"] = 4
    for record in old["results"]:
        del record["containment"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(old))
    loaded = RunResults.read(path)
    assert describe_run([r.containment for r in loaded.results]) == [UNKNOWN]
    refused = compare(loaded, _run(BWRAP), baseline_name="old").refused
    assert refused is not None and refused.startswith(
        f"gate refuses to compare: old ran under {UNKNOWN} (saved before pytest-mlab "
        "recorded it), this run under local/bwrap")
    assert compare(loaded, _run(None)).refused is None


def test_report_html_shows_the_runs_containment_and_each_trials(tmp_path: Path) -> None:
    html = render(build_report(_run(NONE), tmp_path))
    assert (f'<dd id="containment"><span class="weak">{NONE.describe()}</span></dd>') in html
    assert html.count(f'<td class="weak">{NONE.describe()}</td>') == 6
    assert "WEAK: it failed its attestation" in NONE.describe()
    old = render(build_report(_run(None), tmp_path))
    assert f'<dd id="containment">{UNKNOWN}</dd>' in old
    compared = compare(_run(BWRAP), _run(NONE), baseline_name="0001_base.json")
    refused = render(build_report(_run(NONE), tmp_path, compared))
    shown = escape(REFUSED)
    assert f'<p class="gate tripped" id="containment-refused">{shown}</p>' in refused


def test_the_run_browser_shows_containment_and_warns_of_columns_apart(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    for name, containment in (("run-a", BWRAP), ("run-b", NONE), ("run-c", None)):
        (reports / name).mkdir(parents=True)
        _run(containment, run_id=name).write(reports / name / "results.json")
    index = RunIndex([reports])
    rows = {row["run_id"]: row["containment"] for row in run_table(index)["runs"]}
    assert rows == {
        "run-a": [{"short": "local/bwrap", "text": BWRAP.describe(), "weak": False}],
        "run-b": [{"short": "local/none", "text": NONE.describe(), "weak": True}],
        "run-c": [{"short": "unknown", "text": UNKNOWN, "weak": False}],
    }
    runs = []
    for key in ("0.run-a", "0.run-b"):
        entry = index.entry(key)
        assert entry is not None
        run = index.results(entry)
        assert isinstance(run, RunResults)
        runs.append((entry, run))
    data = comparison(runs)
    assert [c["containment"][0]["short"] for c in data["columns"]] == ["local/bwrap", "local/none"]
    assert data["containment_apart"] == [
        "run-b ran under local/none (uid host root (no user namespace), seccomp modes 0, 2 "
        "(not every process filtered), network eth0, lo), unlike run-a (local/bwrap (uid "
        "65534 -> a host uid of its own, seccomp filter (2) in every process, network lo "
        "only)): the gate would not compare them"]
    assert data["rows"][0]["cells"][1]["tests"]["success"]["p"] == pytest.approx(1.0)
    assert trial_detail(*runs[1], 0)["containment"] == NONE.describe()
