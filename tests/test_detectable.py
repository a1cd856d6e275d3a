"""What a run can detect, before it starts (issue 42): the smallest fall of success the
gate's own test could call significant with the selected trials, or that none could."""

from __future__ import annotations

from scipy.stats import binomtest, fisher_exact

from pytest_mlab.analysis.detectable import detectable, detection_lines, smallest_fall
from pytest_mlab.analysis.groups import Group

EVERY_PASS = dict.fromkeys(range(8), True)
G = Group("t", "a", None)


def test_paired_trials_by_hand() -> None:
    # Paired: w of the 8 that passed fail now, none the other way: p = 0.5**w < 0.05 at 5.
    found = smallest_fall(G, EVERY_PASS, set(range(8)), 0.05)
    assert found.paired and found.fall == 5 / 8
    assert binomtest(5, 5, 0.5, alternative="greater").pvalue < 0.05
    assert binomtest(4, 4, 0.5, alternative="greater").pvalue >= 0.05
    # Two paired trials can never give p < 0.05 (0.25 at best).
    assert smallest_fall(G, {0: True, 1: True}, {0, 1}, 0.05).fall is None


def test_unpaired_trials_match_fishers_test() -> None:
    base = {n: n < 6 for n in range(8)}  # 6 of 8 passed
    found = smallest_fall(G, base, set(range(100, 110)), 0.05)  # other trial numbers: unpaired
    assert not found.paired and found.fall is not None
    # The most current passes whose p is below 0.05, and one more is not.
    most = round((6 / 8 - found.fall) * 10)
    p = [fisher_exact([[k, 10 - k], [6, 2]], alternative="less").pvalue for k in range(11)]
    assert p[most] < 0.05 <= p[most + 1]


def test_more_tests_need_a_larger_fall_and_a_powerless_gate_says_what_it_needs() -> None:
    groups = {Group(f"t{i}", "a", None): EVERY_PASS for i in range(5)}
    current = {group: set(range(8)) for group in groups}
    alone = detectable(dict(list(groups.items())[:1]), current, 0.05, 1)
    five = detectable(groups, current, 0.05, 1)  # Holm's first step: 0.05 / 5
    assert alone[0].fall == 5 / 8 and five[0].fall == 7 / 8
    small = {Group("t", "a", None): {0: True, 1: True}}
    lines = detection_lines(detectable(small, {Group("t", "a", None): {0, 1}}, 0.05, 1),
                            0.1, 0.05, 1)
    assert lines == ["mlab gate: no fall of t/a success can trip the gate with 2 vs 2 "
                     "trials (at best p = 0.25, needed < 0.05); run at least 5 trials per side"]
    # A task that never passed has nothing to fall from: no line.
    never = {Group("t", "a", None): {0: False, 1: False}}
    assert detection_lines(detectable(never, {Group("t", "a", None): {0, 1}}, 0.05, 1),
                           0.1, 0.05, 1) == []
