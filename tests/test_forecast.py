"""The forecast's arithmetic, its history and its words, by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.analysis.forecast import (
    Cell,
    Spread,
    forecast,
    history,
    refuses,
    wall_seconds,
)
from pytest_mlab.analysis.forecast_history import read_history, run_paths, starter_floors
from pytest_mlab.core.results import Outcome, RunInfo, RunResults, TrialResult
from pytest_mlab.report.forecast import forecast_lines, refusal

FREE = Cell("guess", "baseline", None)
PAID = Cell("guess", "react", "gpt-x")


def trial(cell: Cell, seconds: float, cost: float = 0.0, outcome: Outcome = "passed",
          number: int = 0, **extra: Any) -> TrialResult:
    return TrialResult(
        nodeid=f"tasks/{cell.task}/task.toml::{cell.task}[{cell.agent}-t{number}-{seconds}]",
        task=cell.task, agent=cell.agent, llm=cell.llm, trial=number, metric="error",
        direction="lower", outcome=outcome, success=outcome == "passed", threshold=0.1,
        seconds=seconds, cost=cost, **extra,
    )


def past() -> dict[Cell, list[TrialResult]]:
    return history([
        trial(FREE, 10), trial(FREE, 20), trial(FREE, 30),
        trial(PAID, 5, 0.1, tokens_in=900, tokens_out=100),
        trial(PAID, 15, 0.3, outcome="failed", tokens_in=2000, tokens_out=1000),
        # What says nothing of a trial's length or cost: an error, a trial that never ran.
        trial(PAID, 500, 9.0, outcome="error"), trial(PAID, 0.0, outcome="skipped"),
        trial(FREE, 0.0),
        # What no trial can take, from a hand-edited file.
        trial(FREE, float("inf")), trial(FREE, float("nan")), trial(PAID, 5, float("inf")),
        trial(PAID, 5, -1.0),
    ])


def test_totals_are_sums_of_each_cells_mean_least_and_most() -> None:
    result = forecast({FREE: 2, PAID: 3}, past(), {}, workers=1)
    # time: 2 x (10, 20, 30) and 3 x (5, 10, 15) per trial (least, mean, most)
    assert (result.seconds.low, result.seconds.expected, result.seconds.high) == (35, 70, 105)
    assert result.seconds.past == 5
    # cost: the baseline agent uses no LLM, so costs nothing; 3 x (0.1, 0.2, 0.3)
    assert result.cost.low == pytest.approx(0.3)
    assert result.cost.expected == pytest.approx(0.6)
    assert result.cost.high == pytest.approx(0.9)
    assert result.cost.past == 2
    assert result.tokens == pytest.approx(3 * (1000 + 3000) / 2)
    # one worker: the wall is the sum
    assert (result.wall.low, result.wall.expected, result.wall.high) == (35, 70, 105)
    assert (result.untimed, result.unpriced) == ((), ())


def test_wall_time_on_workers_is_the_longest_first_schedule() -> None:
    result = forecast({FREE: 2, PAID: 3}, past(), {}, workers=2)
    # means 20 20 10 10 10 on two workers: 20+10+10 and 20+10
    assert result.wall.expected == 40
    assert result.wall.low == 20  # 10+5+5 and 10+5
    assert result.wall.high == 60
    # 7+3 | 5+4+3: not the best schedule (7+4 | 5+3+3 = 11) but the one the run follows
    assert wall_seconds([3, 5, 3, 7, 4], 2) == 12
    assert wall_seconds([], 3) == 0
    with pytest.raises(ValueError, match="at least one worker"):
        wall_seconds([1.0], 0)


def test_on_ray_the_wall_runs_from_all_at_once_to_one_at_a_time() -> None:
    result = forecast({FREE: 2, PAID: 3}, past(), {}, workers=None)
    assert (result.wall.low, result.wall.high) == (10, 105)


def test_a_cell_without_history_is_left_out_of_the_totals_with_its_floor_apart() -> None:
    never = Cell("timed", "baseline", None)
    result = forecast({FREE: 1, never: 2}, past(), {"timed": 4.0, "guess": 99.0}, workers=1)
    (untimed,) = result.untimed
    assert untimed.cell == never and untimed.floor == 4.0 and untimed.seconds is None
    # Its floor is no part of the figures: the lines say its time is unknown.
    assert (result.seconds.low, result.seconds.expected) == (10, 20)
    assert result.wall.expected == 20
    assert result.seconds.high is None and result.wall.high is None
    assert forecast_lines(result, None)[1] == (
        "mlab forecast: no history for 2 trials (timed x baseline): their time is unknown; at "
        "least 8.0s in all, from the starter's runs in validation.json")
    assert result.seconds.past == 3
    # a cell with history ignores its floor
    assert forecast({FREE: 1}, past(), {"guess": 99.0}, 1).seconds.low == 10


def test_an_llm_cell_without_history_has_no_cost_and_cannot_refuse_on_it() -> None:
    unknown = Cell("guess", "react", "new-model")
    result = forecast({PAID: 1, unknown: 4}, past(), {}, workers=1)
    (unpriced,) = result.unpriced
    assert unpriced.cell == unknown and unpriced.cost is None
    assert result.cost.low == pytest.approx(0.1) and result.cost.high is None
    assert refuses(result, 0.09) and not refuses(result, 0.1)
    lines = "\n".join(forecast_lines(result, cap=0.1))
    assert "no cost history for 4 trials (guess x react x new-model)" in lines
    assert "cannot refuse before the start on the trials without cost history" in lines


def test_refusal_is_on_the_low_end_only() -> None:
    result = forecast({PAID: 3}, past(), {}, workers=1)
    assert refuses(result, 0.29)
    assert not refuses(result, 0.3) and not refuses(result, None)
    assert refusal(result, 0.29) == (
        "--mlab-max-session-cost=$0.29: the forecast's low end is $0.3000 (3 trials, each as "
        "cheap as the cheapest of 2 past trials of its task x agent x llm), above the cap, so "
        "no trial was started; raise the cap or select fewer trials")
    assert any("may pass --mlab-max-session-cost=$0.5" in line
               for line in forecast_lines(result, 0.5))


def test_the_lines_say_what_each_figure_rests_on() -> None:
    never = Cell("timed", "react", "gpt-x")
    result = forecast({FREE: 2, PAID: 1, never: 2}, past(), {"timed": 3.0}, workers=2)
    lines = forecast_lines(result, None, verbose=True)
    # 2 x 20 + 10 expected, 2 x 10 + 5 at least; the untimed two apart, at their floor of 3
    assert lines[0].startswith("mlab forecast: agent time for the 3 trials with history 50.0s "
                               "expected (25.0s to no upper end) from 5 past trials; wall")
    assert lines[1] == ("mlab forecast: no history for 2 trials (timed x react x gpt-x): their "
                        "time is unknown; at least 6.0s in all, from the starter's runs in "
                        "validation.json")
    assert lines[2].startswith("mlab forecast: cost $0.2000 expected ($0.1000 to no upper "
                               "end) from 2 past trials")
    assert "guess x baseline: 2 trials, 20.0s each (10.0s to 30.0s) from 3 past trials, no LLM" \
        in "\n".join(lines)
    assert "timed x react x gpt-x: 2 trials, no history, time unknown (at least 3.0s each" \
        in "\n".join(lines)
    untimed = forecast({never: 3}, past(), {"timed": 3.0}, workers=2)
    assert forecast_lines(untimed, None)[0] == (
        "mlab forecast: no history for 3 trials (timed x react x gpt-x): their time is unknown; "
        "at least 9.0s in all, from the starter's runs in validation.json (wall at least 6.0s "
        "on 2 workers)")
    free = forecast_lines(forecast({FREE: 1}, past(), {}, 1), None)
    assert free[-1] == "mlab forecast: cost $0: no agent of the run uses an LLM"


def test_spread_of_nothing_is_none() -> None:
    assert Spread.of([]) is None
    assert Spread.of([2.0, 4.0]) == Spread(2, 2.0, 3.0, 4.0)


def _run(run_id: str, records: list[TrialResult]) -> RunResults:
    info = RunInfo(run_id=run_id, started="s", finished="f", command=[], machine="m",
                   pytest_mlab_version="0")
    return RunResults(run=info, results=records)


def test_history_reads_runs_and_saved_copies_once(tmp_path: Path) -> None:
    reports, storage = tmp_path / "reports", tmp_path / "runs"
    one = _run("r1", [trial(FREE, 10), trial(FREE, 20, number=1)])
    (reports / "r1").mkdir(parents=True)
    one.write(reports / "r1" / "results.json")
    storage.mkdir()
    one.write(storage / "0001_r1.json")  # a saved copy of the same run
    _run("r2", [trial(FREE, 30)]).write(storage / "0002_other.json")
    (reports / "broken").mkdir()
    (reports / "broken" / "results.json").write_text("{")
    (storage / "notes.json").write_text("{}")  # not a saved run's name: never read
    read = read_history(run_paths(reports, storage))
    assert sorted(r.seconds for r in read.records) == [10, 20, 30]
    assert read.runs == 3 and read.unreadable == [reports / "broken" / "results.json"]


def test_starter_floors_come_from_the_suites_validation_json(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    rows = {"a": {"baseline_seconds": [7.5, 6.25, 9.0]}, "b": {"baseline_seconds": "x"},
            "c": {"baseline_seconds": [0, -1]}, "d": []}
    (suite / "validation.json").write_text(json.dumps(rows))
    tasks = {name: suite for name in "abcde"} | {"f": tmp_path / "missing"}
    assert starter_floors(tasks) == {"a": 6.25}


# End to end: a history run under reports/, then a session over the example task, in a
# subprocess: a session with an LLM imports litellm, which an in-process run would leave
# half-forgotten for the next one.
ECHO = "scripted_agents:EchoAgent"  # declares an LLM, never calls one
MODEL = "forecast-model"


def _history_run(root: Path, costs: list[float], agent: str = ECHO) -> None:
    """A finished run of the guess task by ``agent`` on MODEL, one trial per cost."""
    cell = Cell("guess", agent, MODEL)
    records = [trial(cell, 2.0 + k, cost, number=k) for k, cost in enumerate(costs)]
    (root / "reports" / "history").mkdir(parents=True)
    _run("history", records).write(root / "reports" / "history" / "results.json")


def _runs(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "reports").iterdir())


# Ray at an address where no cluster listens: the refusal comes before it connects.
WHERE = {"serial": [], "xdist": ["-n", "2"], "ray": ["--mlab-dispatch=ray:127.0.0.1:9"]}


@pytest.mark.parametrize("where", WHERE)
def test_a_cap_below_the_forecasts_low_end_refuses_before_any_trial(
    pytester: pytest.Pytester, recorded: Any, mlab_args: list[str], where: str
) -> None:
    if where == "ray":
        pytest.importorskip("ray")
    recorded("guess")
    _history_run(pytester.path, [0.75, 0.8, 1.25])
    run = pytester.runpytest_subprocess(
        "tasks", f"--agent={ECHO}", f"--llm={MODEL}", "--mlab-trials=2",
        "--mlab-max-session-cost=1.49", *WHERE[where], *mlab_args, timeout=120)
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines([
        "ERROR: --mlab-max-session-cost=$1.49: the forecast's low end is $1.50 (2 trials, "
        "each as cheap as the cheapest of 3 past trials of its task x agent x llm), above the "
        "cap, so no trial was started; raise the cap or select fewer trials"])
    assert "PASSED" not in run.stdout.str() and "passed" not in run.stdout.str()
    assert _runs(pytester.path) == ["history"]


def test_a_cap_above_the_low_end_runs_and_the_forecast_is_printed(
    pytester: pytest.Pytester, recorded: Any, mlab_args: list[str], read_results: Any
) -> None:
    recorded("guess")
    _history_run(pytester.path, [0.75, 0.8, 1.25])
    run = pytester.runpytest_subprocess(
        "tasks", f"--agent={ECHO}", f"--llm={MODEL}", "--mlab-trials=2",
        "--mlab-max-session-cost=1.5", *mlab_args)
    run.assert_outcomes(passed=0, failed=2)  # the starter's guess: no improvement
    run.stdout.fnmatch_lines([
        "collected 2 items",
        "mlab forecast: agent time 6.0s expected (4.0s to 8.0s) from 3 past trials; one "
        "trial at a time",
        "mlab forecast: cost $1.87 expected ($1.50 to $2.50) from 3 past trials",
        "mlab forecast: the cost may pass --mlab-max-session-cost=$1.5; trials left when it "
        "is spent are skipped",
    ])
    assert len(_runs(pytester.path)) == 2 and len(read_results()) == 2


def test_without_history_the_forecast_says_so_and_the_cap_cannot_refuse(
    pytester: pytest.Pytester, recorded: Any, mlab_args: list[str]
) -> None:
    recorded("guess")
    validation = {"guess": {"baseline_seconds": [2.5, 1.5]}}  # the starter's runs
    (pytester.path / "tasks" / "validation.json").write_text(json.dumps(validation))
    run = pytester.runpytest_subprocess(
        "tasks", f"--agent={ECHO}", "--agent=baseline", f"--llm={MODEL}",
        "--mlab-max-session-cost=0.01", *mlab_args)
    run.assert_outcomes(failed=2)
    run.stdout.fnmatch_lines([
        f"mlab forecast: no history for 2 trials (guess x baseline, guess x {ECHO} x {MODEL}): "
        "their time is unknown; at least 3.0s in all, from the starter's runs in "
        "validation.json",
        f"mlab forecast: no cost history for 1 trial (guess x {ECHO} x {MODEL}): their cost "
        "is unknown",
        "mlab forecast: --mlab-max-session-cost=$0.01 cannot refuse before the start on the "
        "trials without cost history; it still stops new trials once the session has spent it",
    ])


STOP_ONCE = """
from typing import ClassVar


class StopOnce:
    uses_llm: ClassVar[bool] = True
    needs_solution: ClassVar[bool] = False

    def __init__(self, context):
        pass

    def run(self, env):
        if env.steps == 0:
            env.execute("Write File", file_name="notes.txt", content="halfway\\n")
            raise KeyboardInterrupt
        env.execute("Final Answer", final_answer="done")
        return "done"
"""


def test_a_refused_resume_leaves_the_run_it_would_resume_as_it_was(
    pytester: pytest.Pytester, recorded: Any, mlab_args: list[str]
) -> None:
    recorded("guess")
    pytester.makepyfile(forecast_agents=STOP_ONCE)
    args = ("tasks", "--agent=forecast_agents:StopOnce", f"--llm={MODEL}",
            "--mlab-max-session-cost=1", *mlab_args)
    first = pytester.runpytest_subprocess(*args)
    assert first.ret == pytest.ExitCode.INTERRUPTED  # no history: nothing to refuse on
    (results,) = pytester.path.glob("reports/*/results.json")
    before = results.read_bytes()
    _history_run(pytester.path, [2.0], agent="forecast_agents:StopOnce")  # dearer since
    resumed = pytester.runpytest_subprocess(*args, "--mlab-resume=last")
    assert resumed.ret == pytest.ExitCode.USAGE_ERROR
    resumed.stderr.fnmatch_lines(["ERROR: --mlab-max-session-cost=$1: the forecast's low end "
                                  "is $2.00 (1 trial, *"])
    assert results.read_bytes() == before
    assert _runs(pytester.path) == sorted([results.parent.name, "history"])
