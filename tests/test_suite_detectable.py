"""The suite-level forecast of what a run can detect: its smallest significant fall is one
that an unchanged agent reaches by chance at about the gate's level, and it says when the
gate's tolerance on the normalised score lies within chance."""

from __future__ import annotations

import random
from statistics import fmean

import pytest

from pytest_mlab.analysis.groups import Group
from pytest_mlab.analysis.suite_detectable import (
    TaskHistory,
    suite_detection_lines,
    suite_falls,
)

RATES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.6, 0.7, 0.8, 0.9]
"""The true success rate of each of ten tasks, the same in both runs."""


def _run(rng: random.Random, trials: int) -> list[int]:
    return [sum(rng.random() < p for _ in range(trials)) for p in RATES]


def test_an_unchanged_agent_falls_that_far_by_chance_about_alpha_of_the_time() -> None:
    rng, trials, alpha, runs = random.Random(7), 8, 0.05, 3000
    groups = [Group(f"t{i}", "a", None) for i in range(len(RATES))]
    tripped = 0
    for _ in range(runs):
        saved, now = _run(rng, trials), _run(rng, trials)
        history = {g: TaskHistory(c, trials) for g, c in zip(groups, saved, strict=True)}
        (fall,) = suite_falls(history, dict.fromkeys(groups, trials), alpha)
        assert fall.success is not None and fall.tasks == len(RATES)
        drop = fmean(saved) / trials - fmean(now) / trials
        tripped += drop >= fall.success
    # The normal approximation over 10 tasks of 8 trials: near 5%, never near 0 or 20%.
    assert 0.025 < tripped / runs < 0.085


def test_more_trials_detect_a_smaller_fall() -> None:
    group = Group("t", "a", None)
    saved = {group: TaskHistory(4, 8, [0.1, 0.5, 0.9, 0.3, 0.2, 0.8, 0.4, 0.6])}
    (few,) = suite_falls(saved, {group: 4}, 0.05)
    (many,) = suite_falls(saved, {group: 64}, 0.05)
    assert few.success is not None and many.success is not None
    assert many.success < few.success
    assert few.normalised is not None and many.normalised is not None
    assert many.normalised < few.normalised


def test_the_lines_say_when_the_tolerance_is_within_chance_and_when_it_is_unknown() -> None:
    one, two = Group("t", "a", None), Group("t", "b", "m")
    saved = {one: TaskHistory(1, 2, [0.0, 1.0]), two: TaskHistory(1, 1, [0.5])}
    falls = suite_falls(saved, {one: 2, two: 1}, 0.05)
    lines = suite_detection_lines(falls, 0.05, 0.1)
    assert lines[0].startswith("mlab gate: over the suite, a's success (the mean over 1 task")
    assert "a's mean normalised score (over 1 task(s)) can show a fall of 1.16 or more" in lines[1]
    assert "the gate's tolerance of 0.1 is within that chance" in lines[1]
    assert lines[3] == ("mlab gate: over the suite, what b/m's mean normalised score moves "
                        "by chance is unknown: the saved run has no task with two or more "
                        "normalised scores")
    # Without a tolerance nothing is weighed against chance, and nothing unknown is said.
    assert not any("tolerance" in line or "unknown" in line
                   for line in suite_detection_lines(falls, 0.05, None))


def test_groups_only_in_one_run_are_left_out() -> None:
    saved = {Group("t", "a", None): TaskHistory(2, 4)}
    assert suite_falls(saved, {Group("u", "a", None): 4}, 0.05) == []
    with pytest.raises(StopIteration):
        next(iter(suite_falls(saved, {Group("t", "a", None): 0}, 0.05)))


def test_the_suite_gate_with_significance_trips_only_on_a_drop_chance_does_not_explain() -> None:
    from pytest_mlab.analysis.gate_suite import AgentComparison, NormalisedDrop, _drop_p

    # Two trials a side: variances 0.02 each, se = sqrt(0.01 + 0.01), z = -0.4 / 0.1414.
    p = _drop_p([([0.5, 0.7], [0.1, 0.3])], -0.4)
    assert p == pytest.approx(0.00234, abs=1e-5)
    assert _drop_p([([0.5], [0.1, 0.3])], -0.3) is None  # one trial: no spread to weigh
    drop = AgentComparison("a", None, 0.6, 0.2, 1)
    plain, tested = NormalisedDrop(0.1), NormalisedDrop(0.1, 0.05)
    assert plain.check(drop) is not None  # a plain tolerance needs no p
    assert tested.check(drop) is None  # no p: nothing shown significant
    assert tested.check(AgentComparison("a", None, 0.6, 0.2, 1, p=0.2)) is None
    line = tested.check(AgentComparison("a", None, 0.6, 0.2, 1, p=0.01))
    assert line == ("gate tripped: a mean normalised score 0.60 -> 0.20 (-0.40 over 1 "
                    "task(s), p=0.01 < 0.05; limit -0.1)")
