"""pass@k, pass^k, best-of-k and the normalised score from records: the run's summary, the
reference read from a suite's validation.json, older results files, the report's rows and
the gate on the mean normalised score, each against a hand computation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Literal

import pytest

from pytest_mlab.analysis.gate import Limit, compare
from pytest_mlab.analysis.gate_suite import NormalisedDrop
from pytest_mlab.analysis.summary import normalised_of, summarise
from pytest_mlab.core.reference import reference_mean
from pytest_mlab.core.results import Outcome, RunInfo, RunResults, TrialResult
from pytest_mlab.core.task import load_task
from pytest_mlab.report.markdown import markdown
from pytest_mlab.report.rows import rows_of
from pytest_mlab.report.terminal import comparison_lines, summary_lines

EXAMPLES = Path(__file__).parent / "examples"
INFO = RunInfo(run_id="r", started="", finished="", command=[], machine="m",
               pytest_mlab_version="0")
SCALES: dict[str, tuple[Literal["higher", "lower"], float, float | None]] = {
    "guess": ("lower", 10.0, 4.0), "titanic": ("higher", 0.6, 0.7),
    "unvalidated": ("higher", 0.6, None)}
"""Per task: direction, baseline mean, reference mean."""


def rec(task: str, trial: int, outcome: Outcome, score: float | None, *,
        agent: str = "react") -> TrialResult:
    direction, base, reference = SCALES[task]
    result = TrialResult(
        nodeid=f"{task}[{agent}-t{trial}]", task=task, agent=agent, llm=None, trial=trial,
        metric="m", direction=direction, outcome=outcome, success=outcome == "passed",
        score=score, baseline_mean=base, reference_mean=reference, threshold=0.1,
    )
    if score is not None:
        gain = score - base if direction == "higher" else base - score
        result.improvement = gain / abs(base)
        result.normalised_score = normalised_of(result)
    return result


def guess_trials(agent: str = "react") -> list[TrialResult]:
    """Error, lower is better, baseline 10, reference 4: four trials ran, two passed."""
    return [
        rec("guess", 0, "passed", 7.0, agent=agent),  # improvement 0.3, normalised 0.5
        rec("guess", 1, "passed", 4.0, agent=agent),  # 0.6, 1.0
        rec("guess", 2, "failed", 11.0, agent=agent),  # -0.1, -1/6
        rec("guess", 3, "failed", None, agent=agent),  # invalid: 0 and 0
        rec("guess", 4, "error", 1.0, agent=agent),  # the harness's: not counted
        rec("guess", 5, "skipped", None, agent=agent),
    ]


def test_normalised_scores_of_records_by_hand() -> None:
    trials = guess_trials()
    assert [t.normalised_score for t in trials[:4]] == pytest.approx([0.5, 1.0, -1 / 6, None])
    titanic = rec("titanic", 0, "passed", 0.65)
    assert titanic.normalised_score == pytest.approx(0.5)  # (0.65 - 0.6) / (0.7 - 0.6)
    assert rec("unvalidated", 0, "passed", 0.9).normalised_score is None


def test_a_group_summary_by_hand() -> None:
    (group,) = summarise(guess_trials()).groups
    assert (group.n, group.passed) == (4, 2)
    # n = 4, c = 2: pass@2 = 1 - C(2,2)/C(4,2) = 5/6; pass^2 = C(2,2)/C(4,2) = 1/6.
    assert group.pass_at_k == pytest.approx({1: 0.5, 2: 5 / 6, 3: 1.0, 4: 1.0})
    assert group.pass_hat_k == pytest.approx({1: 0.5, 2: 1 / 6, 3: 0.0, 4: 0.0})
    # Improvements 0.3, 0.6, -0.1 and 0 (the invalid one); sorted -0.1, 0, 0.3, 0.6:
    # best of 2 = (0*-0.1 + 1*0 + 2*0.3 + 3*0.6) / C(4,2) = 2.4 / 6;
    # best of 3 = (C(2,2)*0.3 + C(3,2)*0.6) / C(4,3) = 2.1 / 4.
    assert group.best_of_k == pytest.approx({1: 0.2, 2: 0.4, 3: 0.525, 4: 0.6})
    # (0.5 + 1 - 1/6 + 0) / 4: the invalid trial counts as the starting point, 0.
    assert group.mean_normalised == pytest.approx(1 / 3)


def test_the_suite_mean_weighs_each_task_the_same() -> None:
    titanic = [rec("titanic", 0, "passed", 0.65), rec("titanic", 1, "passed", 0.7)]
    other = [rec("unvalidated", 0, "passed", 0.9)]
    summary = summarise([*guess_trials(), *titanic, *other, *guess_trials("oracle")])
    assert [a.agent for a in summary.agents] == ["oracle", "react"]
    by_agent = {a.agent: a for a in summary.agents}
    # guess 1/3 (four trials), titanic (0.5 + 1) / 2 = 0.75 (two): (1/3 + 0.75) / 2.
    assert by_agent["react"].mean_normalised == pytest.approx(13 / 24)
    assert (by_agent["react"].tasks, by_agent["react"].tasks_without) == (2, ["unvalidated"])
    assert by_agent["oracle"].mean_normalised == pytest.approx(1 / 3)
    unvalidated = next(g for g in summary.groups if g.task == "unvalidated")
    assert unvalidated.mean_normalised is None and unvalidated.pass_at_k == {1: 1.0}


def test_where_a_trial_errored_each_figure_is_given_again_with_it_as_a_failure(
    tmp_path: Path,
) -> None:
    """guess: 2 of the 4 that ran passed, and 1 more errored: with it as a failed trial,
    2 of 5. Left out, errors flatter a run whose infrastructure failed (issue 42)."""
    summary = summarise(guess_trials())
    (group,) = summary.groups
    assert (summary.errors, summary.clean, group.errors) == (1, False, 1)
    # n = 5, c = 2: pass@2 = 1 - C(3,2)/C(5,2) = 0.7; pass@3 = 1 - C(3,3)/C(5,3) = 0.9.
    assert group.pass_at_k_with_errors == pytest.approx({1: 0.4, 2: 0.7, 3: 0.9, 4: 1.0,
                                                         5: 1.0})
    # (0.5 + 1 - 1/6 + 0 + 0) / 5: the error counts as 0, as an invalid submission does.
    assert group.mean_normalised_with_errors == pytest.approx(4 / 15)
    assert summary.agents[0].mean_normalised_with_errors == pytest.approx(4 / 15)
    (row,) = rows_of(guess_trials())
    assert (row.success_rate, row.success_with_errors) == (0.5, pytest.approx(0.4))
    assert row.pass_at_k_with_errors == pytest.approx(1.0)  # k = 4 of the 5
    header, line, *rest = summary_lines([row])
    assert "success w/ errors" in header and "pass@k w/ errors" in header
    assert " 2/4 " in line and " 2/5 " in line
    assert rest[-2].startswith("mean normalised score react: 0.33 over 1 task, 95% CI [")
    assert rest[-2].endswith("; 0.27 with errors as 0")
    assert rest[-1] == ("run not clean: 1 trial ended in a harness error; the 'w/ errors' "
                        "columns count each as a failed trial (0 normalised)")
    assert "**run not clean: 1 trial ended" in markdown("r", guess_trials(), None)
    # A clean run shows none of it.
    ran = [t for t in guess_trials() if t.outcome != "error"]
    clean = summarise(ran)
    assert clean.clean and clean.groups[0].pass_at_k_with_errors == {}
    assert clean.groups[0].mean_normalised_with_errors is None
    text = "\n".join(summary_lines(rows_of(ran))) + markdown("r", ran, None)
    assert "w/ errors" not in text and "not clean" not in text and "with errors" not in text


def test_a_record_with_an_infinite_improvement_leaves_best_of_k_out() -> None:
    trials = guess_trials()
    trials[0].improvement = float("inf")  # a record read from disk may hold anything
    (group,) = summarise(trials).groups
    assert group.best_of_k == {} and group.pass_at_k[2] == pytest.approx(5 / 6)


def test_a_group_where_nothing_ran_has_no_estimates() -> None:
    (group,) = summarise([rec("guess", 0, "error", None), rec("guess", 1, "skipped", None)]).groups
    assert (group.n, group.pass_at_k, group.best_of_k, group.mean_normalised) == (0, {}, {}, None)


def test_rows_show_pass_at_the_chosen_k(tmp_path: Path) -> None:
    (row,) = rows_of(guess_trials())
    assert (row.pass_k, row.pass_at_k, row.pass_hat_k) == (4, 1.0, 0.0)
    (row,) = rows_of(guess_trials(), pass_k=2)
    assert (row.pass_k, row.pass_at_k, row.pass_hat_k) == pytest.approx((2, 5 / 6, 1 / 6))
    assert row.mean_normalised == pytest.approx(1 / 3)
    (row,) = rows_of(guess_trials(), pass_k=5)  # more than the four that ran
    assert (row.pass_at_k, row.pass_hat_k) == (None, None)
    header, line, left_out, suite, _ = summary_lines(rows_of(guess_trials(), pass_k=2))
    assert all(name in header for name in ("pass@k", "pass^k", "norm. score"))
    assert left_out.startswith("columns left out: mean tokens, mean cost, unreproduced")
    assert " 83% " in line and " 17% " in line and " 0.33 " in line
    assert suite.startswith("mean normalised score react: 0.33 over 1 task, 95% CI [")
    text = markdown("r", guess_trials(), None, pass_k=2)
    assert "| 2 | 83% | 0.33 |" in text and "mean normalised score react: 0.33" in text


# --- the reference solution's mean ------------------------------------------------------


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "guess", tmp_path / "guess")
    return tmp_path


def test_the_reference_is_the_mean_of_the_solution_runs_kept(suite: Path) -> None:
    task = load_task(suite / "guess" / "task.toml")
    assert reference_mean(task) is None  # no validation.json
    rows = {"guess": {"solution": [1.5, 2.5, None]}, "other": {"solution": [9.0]}}
    (suite / "validation.json").write_text(json.dumps(rows))
    assert reference_mean(task) == 2.0  # the failed run (null) left out
    for row in ({}, {"solution": [None]}, {"solution": "2"}, {"solution": [True]}):
        (suite / "validation.json").write_text(json.dumps({"guess": row}))
        assert reference_mean(task) is None, row


def test_an_unreadable_validation_file_gives_no_reference_and_says_so(suite: Path) -> None:
    task = load_task(suite / "guess" / "task.toml")
    (suite / "validation.json").write_text("{not json")
    with pytest.warns(UserWarning, match=r"validation.json: not readable JSON .*no task of "
                                         "this suite gets a normalised score"):
        assert reference_mean(task) is None
    (suite / "validation.json").write_text("[1, 2]")
    with pytest.warns(UserWarning, match="expected an object of rows by task name, got list"):
        assert reference_mean(task) is None


# --- results files of schema 2 ----------------------------------------------------------


def test_a_schema_2_results_file_still_reads(tmp_path: Path) -> None:
    trials = [rec("titanic", 0, "passed", 0.65), rec("titanic", 1, "failed", None)]
    raw = json.loads(RunResults(run=INFO, results=trials).model_dump_json())
    raw["schema_version"] = 2
    del raw["summary"]
    for record in raw["results"]:
        record["schema_version"] = 2
        del record["reference_mean"], record["normalised_score"], record["final_answer_required"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(raw))
    old = RunResults.read(path)
    assert old.schema_version == 2 and old.summary is None
    assert [(r.reference_mean, r.normalised_score) for r in old.results] == [(None, None)] * 2
    assert not any(r.final_answer_required for r in old.results)  # schema 4 added it
    (group,) = summarise(old.results).groups  # pass@k still; no scale, no normalised score
    assert group.pass_at_k == {1: 0.5, 2: 1.0} and group.mean_normalised is None


# --- the gate on the mean normalised score ----------------------------------------------


def titanic_run(scores: list[float | None]) -> RunResults:
    """Trials of titanic (baseline 0.6, reference 0.7); a score passes from 0.66 up."""
    return RunResults(run=INFO, results=[
        rec("titanic", t, "passed" if s is not None and s >= 0.66 else "failed", s)
        for t, s in enumerate(scores)])


def test_the_gate_trips_on_a_drop_of_the_mean_normalised_score() -> None:
    before = titanic_run([0.68, 0.68, 0.68, 0.68])  # 0.8 each
    after = titanic_run([0.66, 0.66, 0.66, None])  # (0.6 * 3 + 0) / 4 = 0.45
    report = compare(before, after, drop=NormalisedDrop(0.1))
    (agent,) = report.agents
    assert (agent.baseline, agent.current, agent.tasks) == pytest.approx((0.8, 0.45, 1))
    assert report.failures == ["gate tripped: react mean normalised score 0.80 -> 0.45 "
                               "(-0.35 over 1 task(s); limit -0.1)"]
    assert report.summary == "gate tripped on 1 comparison(s) (normalised:-0.1)"
    lines = comparison_lines(report)
    assert any("over the suite" in line and "TRIPPED" in line and red for line, red in lines)
    assert not compare(before, after, drop=NormalisedDrop(0.4)).tripped
    assert not compare(before, after).tripped  # no tolerance given: shown, not gated


def test_the_gate_passes_without_a_drop_and_at_exactly_the_tolerance() -> None:
    before = titanic_run([0.68, 0.68])  # 0.8
    report = compare(before, titanic_run([0.7, 0.69]), drop=NormalisedDrop(0.1))  # 0.95
    assert not report.tripped and report.agents[0].delta == pytest.approx(0.15)
    assert report.summary == "gate passed: no mean normalised score dropped by more than 0.1"
    exactly = compare(before, titanic_run([0.67, 0.67]), drop=NormalisedDrop(0.1))  # 0.7
    assert exactly.agents[0].delta == pytest.approx(-0.1) and not exactly.tripped
    # Two trials can never make a fall significant; the tolerance could still have tripped.
    both = compare(before, titanic_run([0.7, 0.69]), (Limit("success", 0.1),),
                   drop=NormalisedDrop(0.1))
    assert both.powerless and both.summary == (
        "gate passed only because it could not trip: too few trials for any fall to be "
        "significant at alpha 0.05 (success:-10%); no mean normalised score dropped by more "
        "than 0.1")


def test_a_normalised_gate_with_nothing_to_compare_fails() -> None:
    before = RunResults(run=INFO, results=[rec("unvalidated", 0, "passed", 0.9)])
    report = compare(before, before, drop=NormalisedDrop(0.1))
    assert report.tripped and report.failures[0].startswith(
        "gate could not check the normalised score: no task both runs ran has one")


def test_the_comparison_shows_pass_at_k_and_the_normalised_score_of_both_runs() -> None:
    before = titanic_run([0.68, 0.68, 0.68, 0.5])  # 3 of 4 pass
    after = titanic_run([0.68, 0.5, 0.5, 0.5])  # 1 of 4
    comparisons = {c.metric_text: c for c in compare(before, after, pass_k=2).comparisons}
    # pass@2: 1 - C(1,2)/C(4,2) = 1 before; 1 - C(3,2)/C(4,2) = 1/2 now.
    at_2 = comparisons["pass@2"]
    assert (at_2.baseline, at_2.current, at_2.delta_text, at_2.test) == (1.0, 0.5, "-50%", "-")
    norm = comparisons["normalised"]
    # (0.8 * 3 - 1) / 4 = 0.35 before; (0.8 - 3) / 4 = -0.55 now; paired by trial.
    assert (norm.baseline, norm.current) == pytest.approx((0.35, -0.55))
    assert (norm.baseline_text, norm.current_text, norm.delta_text) == ("0.35", "-0.55", "-0.90")
    assert norm.test == "sign-flip" and norm.p_value is not None and norm.failure is None
    default = {c.metric_text for c in compare(before, after).comparisons}
    assert "pass@4" in default  # k: the fewer trials of the two runs
