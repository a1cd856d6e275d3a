"""The suite's figures with an interval over tasks and over trials within tasks, and the
split of their variance into those two sources (issue 42)."""

from __future__ import annotations

import random

import pytest

from pytest_mlab.analysis.suite_interval import suite_interval
from pytest_mlab.analysis.summary import summarise
from pytest_mlab.core.results import TrialResult


def test_the_split_by_hand() -> None:
    # Two tasks, one always passed, one never: all of the variance is which task.
    split = suite_interval([[1, 1, 1, 1], [0, 0, 0, 0]])
    assert split is not None and (split.value, split.tasks_share) == (0.5, 1.0)
    # Two tasks alike, each half passed: all of it is which trials.
    alike = suite_interval([[1, 0, 1, 0], [0, 1, 0, 1]])
    assert alike is not None and alike.tasks_share == 0.0
    # var(m_t) / T = 0.0625 / 2; sum s_t^2 / n_t / T^2 = (0 + 0.25 / 4) / 4.
    mixed = suite_interval([[1, 1, 1, 1], [1, 0, 1, 0]])
    assert mixed is not None
    assert mixed.tasks_share == pytest.approx(0.03125 / (0.03125 + 0.015625))
    assert suite_interval([[], []]) is None
    assert suite_interval([[1, 1], [1, 1]]) == suite_interval([[1, 1], [1, 1]])  # seeded
    nothing = suite_interval([[1, 1], [1, 1]])
    assert nothing is not None and (nothing.low, nothing.high, nothing.tasks_share) == (
        1.0, 1.0, None)


def test_more_tasks_narrow_the_interval_and_it_covers_the_suites_mean() -> None:
    """Tasks drawn from a population whose success rates are spread over 0.1 to 0.9, 8
    trials each: the interval holds the population's mean (0.5) in about 95% of suites,
    where one over the trials alone would be too narrow for the spread of the tasks."""
    rng = random.Random(7)

    def suite(tasks: int) -> list[list[int]]:
        rates = [rng.uniform(0.1, 0.9) for _ in range(tasks)]
        return [[int(rng.random() < p) for _ in range(8)] for p in rates]

    covered = 0
    for _ in range(200):
        found = suite_interval(suite(12), draws=400, seed=rng.randrange(10**6))
        assert found is not None
        covered += found.low <= 0.5 <= found.high
    assert covered >= 0.88 * 200, covered
    few = [suite_interval(suite(4), draws=400) for _ in range(20)]
    many = [suite_interval(suite(40), draws=400) for _ in range(20)]
    assert (sum(f.high - f.low for f in few if f) / 20
            > 1.5 * sum(m.high - m.low for m in many if m) / 20)


def _trial(task: str, trial: int, passed: bool) -> TrialResult:
    return TrialResult(nodeid=f"{task}[a-t{trial}]", task=task, agent="a", llm=None,
                       trial=trial, metric="m", direction="higher",
                       outcome="passed" if passed else "failed", success=passed, score=None,
                       threshold=0.1)


def test_results_json_holds_each_agents_suite_success_with_its_interval() -> None:
    records = [_trial("x", n, True) for n in range(4)] + [
        _trial("y", n, n == 0) for n in range(4)]
    (agent,) = summarise(records).agents
    assert agent.success_rate == pytest.approx((1.0 + 0.25) / 2)
    assert agent.success_low is not None and agent.success_high is not None
    assert agent.success_low <= agent.success_rate <= agent.success_high
    assert agent.success_tasks_share is not None and 0 < agent.success_tasks_share < 1
