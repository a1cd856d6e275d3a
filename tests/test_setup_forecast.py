"""The work around the trials, said as it happens and forecast from its history: a task's
data preparation and baseline measuring (only where this machine lacks them) and each
trial's scoring."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.analysis.forecast import Forecast, forecast
from pytest_mlab.analysis.forecast_setup import setup_forecast
from pytest_mlab.core import phase_times
from pytest_mlab.core.phase_times import Phase
from pytest_mlab.report.forecast import setup_lines


def _seconds(text: str) -> float:
    """A time as fmt.seconds writes it under a minute."""
    match = re.fullmatch(r"(\d+\.\d)s", text)
    assert match, text
    return float(match.group(1))


def _empty() -> Forecast:
    return forecast({}, {}, {}, workers=1)


def test_a_task_with_history_costs_its_mean_and_one_without_is_unknown() -> None:
    past: dict[tuple[str, Phase], list[float]] = {
        ("a", "prepare"): [10.0, 20.0], ("a", "baseline"): [30.0],
        ("a", "scoring"): [1.0, 3.0], ("b", "scoring"): [4.0]}
    needs: dict[Phase, dict[str, int]] = {
        "prepare": {"a": 1, "b": 1}, "baseline": {"a": 1}, "scoring": {"a": 3, "b": 1}}
    setup = setup_forecast(needs, past)
    assert setup.seconds == 15 + 30 + 3 * 2 + 4 and not setup.complete
    lines = setup_lines(setup, _empty())
    assert lines == [
        "mlab forecast: around the trials 55.0s expected: preparing data 15.0s (a), measuring "
        "baselines 30.0s (a), scoring 10.0s (4 trials)",
        "mlab forecast: no history for preparing the data of b: their time is unknown",
        "mlab forecast: in all 55.0s expected and more for what has no history, one trial "
        "after another (agent time, data, baselines and scoring)",
    ]
    # Prepared already and kept already: nothing to do costs nothing, and says so.
    warm = setup_lines(setup_forecast({"scoring": {"a": 1}}, past), _empty())
    assert warm[0] == ("mlab forecast: around the trials 2.0s expected: scoring 2.0s (1 trial), "
                       "data prepared already")


def test_a_cold_run_says_its_setup_and_the_next_forecasts_it(
    pytester: pytest.Pytester, task_tree: Callable[..., Path], mlab_args: list[str],
) -> None:
    root = task_tree("guess")
    manifest = root / "task.toml"
    manifest.write_text(manifest.read_text().replace('kind = "recorded"',
                                                     'kind = "per-machine"'))
    # Cold, under -n: the workers' lines reach the controller's terminal.
    cold = pytester.runpytest_subprocess("tasks", "--agent=oracle", "-n", "2", *mlab_args)
    cold.assert_outcomes(passed=1)
    cold.stdout.fnmatch_lines([
        "mlab forecast: no history for 1 trial (guess x oracle): their time is unknown",
        "mlab forecast: no history for preparing the data of guess; measuring the baseline of "
        "guess; scoring 1 trial (guess): their time is unknown",
        "mlab forecast: in all: unknown, as no part of the run has history here",
        "mlab: guess: preparing its data...",
        "mlab: guess: data prepared in *s",
        "mlab: guess: measuring its baseline (2 runs of the starter)...",
        "mlab: guess: baseline measured in *s",
    ])
    kept = phase_times.read(pytester.path / "cache")
    assert {phase for _, phase in kept} == {"prepare", "baseline", "scoring"}
    assert [len(v) for v in kept.values()] == [1, 1, 1]
    # Warm: the data is prepared and the baseline kept, so neither is forecast nor said.
    warm = pytester.runpytest("tasks", "--agent=oracle", "--mlab-trials=2", *mlab_args)
    warm.assert_outcomes(passed=2)
    text = warm.stdout.str()
    assert "preparing" not in text and "measuring" not in text and "no history" not in text
    agent = re.search(r"mlab forecast: agent time (\S+) expected", text)
    around = re.search(r"mlab forecast: around the trials (\S+) expected: scoring (\S+) "
                       r"\(2 trials\), data prepared already\n", text)
    total = re.search(r"mlab forecast: in all (\S+) expected, one trial after another", text)
    assert agent and around and total, text
    assert around.group(1) == around.group(2)
    assert _seconds(around.group(2)) == pytest.approx(2 * kept[("guess", "scoring")][0], abs=0.1)
    assert _seconds(total.group(1)) == pytest.approx(
        _seconds(agent.group(1)) + _seconds(around.group(1)), abs=0.15)
