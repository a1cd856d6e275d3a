"""The gate's exact tests against hand-computed p-values, its limits, and its error rates
on simulated runs (fixed seeds: the measured rates are the same on every run)."""

from __future__ import annotations

import argparse
import functools
import random
from collections.abc import Callable, Sequence

import pytest

from pytest_mlab.analysis.gate import GateReport, Limit, compare
from pytest_mlab.analysis.significance import fisher_p, mcnemar_p, permutation_p, sign_flip_p
from pytest_mlab.core.results import RunInfo, RunResults, TrialResult
from pytest_mlab.plugin.config.parsers import parse_limit
from pytest_mlab.report.terminal import comparison_lines

# --- the exact tests --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("worse", "better", "p"),
    [
        (5, 0, 1 / 32),  # every discordant pair got worse: 2**-5
        (0, 5, 1.0),
        (0, 0, 1.0),
        (3, 1, 5 / 16),  # P(X >= 3), X ~ Bin(4, 1/2) = (4 + 1) / 16
        (6, 2, 37 / 256),  # (C(8,6) + C(8,7) + C(8,8)) / 2**8 = (28 + 8 + 1) / 256
    ],
)
def test_mcnemar(worse: int, better: int, p: float) -> None:
    assert mcnemar_p(worse, better) == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize(
    ("base", "cur", "p"),
    [
        ((5, 5), (0, 5), 1 / 252),  # the one table of C(10, 5) with no current success
        # 13 successes in 20: P(X <= 4) = (C(13,3)C(7,7) + C(13,4)C(7,6)) / C(20,10)
        ((9, 10), (4, 10), (286 + 715 * 7) / 184756),
        # Better now: P(X <= 9) is all but X = 10: 1 - C(13,10)C(7,0)/C(20,10).
        ((4, 10), (9, 10), 1 - 286 / 184756),
        ((3, 3), (3, 3), 1.0),
    ],
)
def test_fisher(base: tuple[int, int], cur: tuple[int, int], p: float) -> None:
    assert fisher_p(*base, *cur) == pytest.approx(p, rel=1e-12)


def test_sign_flip_exact() -> None:
    # All 8 sign choices of 1, 2, 3: sums 6, 4, 2, 0, 0, -2, -4, -6.
    assert sign_flip_p([-1.0, -2.0, -3.0]) == pytest.approx(1 / 8)
    assert sign_flip_p([-1.0, -2.0, 3.0]) == pytest.approx(5 / 8)
    assert sign_flip_p([0.0, 0.0]) == 1.0
    # Floating-point ties with the observed sum count as ties.
    assert sign_flip_p([-0.1, -0.2, 0.3]) == pytest.approx(5 / 8)


def test_sign_flip_splits_and_samples_alike() -> None:
    rng = random.Random(3)
    diffs = [rng.gauss(-0.02, 0.05) for _ in range(16)]
    exact = sign_flip_p(diffs)
    assert sign_flip_p(diffs, exact_up_to=0, resamples=20_000) == pytest.approx(exact, abs=0.01)
    # Beyond the exact limit, all 40 negative: only the observed labelling is as low.
    assert sign_flip_p([-0.1] * 40) == pytest.approx(1 / 10_001)


def test_permutation_exact_and_sampled() -> None:
    # Of the C(6,3) = 20 ways to pick three, only the three zeros sum to 0.
    assert permutation_p([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]) == pytest.approx(1 / 20)
    assert permutation_p([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]) == 1.0
    assert permutation_p([], [1.0]) == 1.0
    rng = random.Random(5)
    base = [rng.gauss(0.1, 0.05) for _ in range(8)]
    cur = [rng.gauss(0.06, 0.05) for _ in range(8)]
    exact = permutation_p(base, cur)
    assert permutation_p(base, cur, exact_up_to=0, resamples=20_000) == pytest.approx(
        exact, abs=0.01
    )


# --- limits --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("success:-10%", Limit("success", 0.10)),
        ("success:10%", Limit("success", 0.10)),
        ("success:-0.1", Limit("success", 0.1)),
        ("improvement:-5%", Limit("improvement", 0.05)),
        ("improvement:-2.5%", Limit("improvement", 0.025)),
        ("success:-0%", Limit("success", 0.0)),
    ],
)
def test_limits_parse(text: str, limit: Limit) -> None:
    parsed = parse_limit(text)
    assert parsed.metric == limit.metric
    assert parsed.fall == pytest.approx(limit.fall)


@pytest.mark.parametrize("text", ["success", "speed:-10%", "success:-10", "success:-x%", ""])
def test_a_bad_limit_says_the_expected_form(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=r"expected METRIC:-N% or METRIC"):
        parse_limit(text)


# --- comparisons of runs --------------------------------------------------------------


@functools.cache
def record(task: str, agent: str, trial: int, ok: bool, gain: float | None) -> TrialResult:
    # Cached: the simulations below draw the same records hundreds of thousands of times.
    return TrialResult(
        nodeid=f"{task}[{agent}-t{trial}]", task=task, agent=agent, llm="gpt-4", trial=trial,
        metric="accuracy", direction="higher", outcome="passed" if ok else "failed",
        success=ok, improvement=gain, threshold=0.1,
    )


def make_run(
    successes: Sequence[bool],
    improvements: Sequence[float | None] | None = None,
    *, first_trial: int = 0, agent: str = "react", task: str = "titanic",
) -> RunResults:
    gains = improvements if improvements is not None else [None] * len(successes)
    results = [
        record(task, agent, first_trial + k, ok, gain)
        for k, (ok, gain) in enumerate(zip(successes, gains, strict=True))
    ]
    info = RunInfo(run_id="r", started="", finished="", command=[], machine="m",
                   pytest_mlab_version="0")
    return RunResults(run=info, results=results)


SUCCESS = (Limit("success", 0.10),)
IMPROVEMENT = (Limit("improvement", 0.05),)


def test_the_tripped_line_names_the_group_and_the_fall() -> None:
    before = make_run([True] * 9 + [False])
    after = make_run([True] * 4 + [False] * 6, first_trial=100)
    report = compare(before, after, SUCCESS)
    assert report.failures == [
        "gate tripped: titanic/react/gpt-4 success 9/10 -> 4/10 (-50%, p=0.029; limit -10%)"
    ]
    (success, improvement, _, _) = report.comparisons
    assert (success.paired, success.test) == (False, "Fisher")
    assert improvement.p_value is None and improvement.failure is None
    assert comparison_lines(report)[2][1] and "TRIPPED" in comparison_lines(report)[2][0]


def test_paired_trials_use_only_the_discordant_pairs() -> None:
    before = make_run([True] * 5 + [False] * 5)
    after = make_run([False] * 5 + [False] * 5)
    (success, *_) = compare(before, after, SUCCESS).comparisons
    assert (success.paired, success.test) == (True, "McNemar")
    assert success.p_value == pytest.approx(1 / 32)
    assert success.failure is not None


def test_a_small_significant_fall_within_the_limit_does_not_trip() -> None:
    before = make_run([True] * 60)
    after = make_run([True] * 55 + [False] * 5)  # -8 points, p = 1/32
    (success, *_) = compare(before, after, SUCCESS).comparisons
    assert success.p_value is not None and success.p_value < 0.05
    assert success.failure is None


def test_a_fall_of_exactly_the_limit_does_not_trip() -> None:
    before = make_run([True] * 16 + [False] * 4)
    after = make_run([False] * 2 + [True] * 14 + [False] * 4)  # 0.8 -> 0.7
    assert not compare(before, after, (Limit("success", 0.10),), alpha=0.5).tripped


def test_holm_shares_alpha_among_the_gated_comparisons() -> None:
    flip = ([True] * 5, [False] * 5)  # each p = 1/32 alone
    before = make_run(flip[0], task="a")
    before.results += make_run(flip[0], task="b").results
    after = make_run(flip[1], task="a")
    alone = compare(before, after, SUCCESS)
    assert alone.comparisons[0].p_gate == pytest.approx(1 / 32) and alone.tripped
    after.results += make_run(flip[1], task="b").results
    both = compare(before, after, SUCCESS)
    assert [c.p_gate for c in both.comparisons if c.metric == "success"] == [1 / 16, 1 / 16]
    assert not both.tripped
    assert [c.p_gate for c in both.comparisons if c.metric == "improvement"] == [None, None]


def test_groups_in_one_run_only_are_listed_not_gated() -> None:
    before = make_run([True] * 5, agent="react")
    after = make_run([False] * 5, agent="oracle")
    report = compare(before, after, SUCCESS)
    assert report.comparisons == [] and not report.tripped
    assert [g.label for g in report.only_baseline] == ["titanic/react/gpt-4"]
    assert "gate not applied" in comparison_lines(report)[-1][0]


def _judged(run: RunResults, **rule: float | bool) -> RunResults:
    run.results = [r.model_copy(update=rule) for r in run.results]
    return run


@pytest.mark.parametrize(("rule", "words"), [
    ({"final_answer_required": True}, "threshold +10%, Final Answer required"),
    ({"threshold": 0.2}, "threshold +20%"),
])
def test_success_judged_by_another_rule_is_not_compared_and_a_success_limit_says_so(
    rule: dict[str, float | bool], words: str,
) -> None:
    """A strict run beside a lenient one (or another bar) would show a fall that is the
    rule's, not the agent's: no test, and a gate on success cannot pass."""
    before = make_run([True] * 10, [0.3] * 10)
    after = _judged(make_run([False] * 10, [0.3] * 10), **rule)
    report = compare(before, after, SUCCESS)
    success, improvement, pass_k, normalised = report.comparisons
    apart = f"baseline run: threshold +10%; this run: {words}"
    assert success.judged_apart == pass_k.judged_apart == apart
    assert success.p_value is None and success.test == "other rules"
    assert improvement.judged_apart is None and improvement.p_value is not None
    assert normalised.judged_apart is None
    assert report.failures == [
        f"gate cannot compare: titanic/react/gpt-4 success was judged by other rules "
        f"({apart}); save a baseline run judged as this one is"]
    lines = [line for line, failed in comparison_lines(report) if failed]
    assert (f"titanic/react/gpt-4: success and pass@k not compared, judged by other rules "
            f"({apart})") in lines
    # A gate on improvement alone still works: that metric does not depend on the rule.
    assert not compare(before, after, IMPROVEMENT).tripped


def test_runs_judged_by_one_rule_are_compared_as_before() -> None:
    before = _judged(make_run([True] * 10), final_answer_required=True)
    after = _judged(make_run([False] * 10), final_answer_required=True)
    (success, *_) = compare(before, after, SUCCESS).comparisons
    assert success.judged_apart is None and success.p_value == pytest.approx(1 / 1024)
    assert success.failure is not None and success.failure.startswith("gate tripped")


# --- error rates on simulated runs ------------------------------------------------------

Draw = Callable[[random.Random], RunResults]
RUNS = 400
# An exact test at 5% false-alarms 5% of the time; 400 runs measure that within 3.3 points
# (three standard deviations), so a test that broke its level would show above this.
LEVEL_BOUND = 0.05 + 3 * (0.05 * 0.95 / RUNS) ** 0.5


def trip_rate(draw_before: Draw, draw_after: Draw, limits: tuple[Limit, ...], runs: int) -> float:
    tripped = 0
    for seed in range(runs):
        rng = random.Random(seed)
        report: GateReport = compare(draw_before(rng), draw_after(rng), limits)
        tripped += report.tripped
    return tripped / runs


def successes(rate: float, n: int = 20, first_trial: int = 0, tasks: int = 1) -> Draw:
    def draw(rng: random.Random) -> RunResults:
        runs = [make_run([rng.random() < rate for _ in range(n)], first_trial=first_trial,
                         task=f"task{t}") for t in range(tasks)]
        runs[0].results += [r for run in runs[1:] for r in run.results]
        return runs[0]

    return draw


def gains(mean: float, n: int = 20, first_trial: int = 0) -> Draw:
    return lambda rng: make_run(
        [True] * n, [rng.gauss(mean, 0.05) for _ in range(n)], first_trial=first_trial
    )


NO_FALL = (Limit("success", 0.0), Limit("improvement", 0.0))
SCENARIOS = {
    "success-paired": ((successes(0.8), successes(0.8)), successes(0.3), SUCCESS),
    "success-unpaired": (
        (successes(0.8), successes(0.8, first_trial=20)), successes(0.3, first_trial=20),
        SUCCESS,
    ),
    "improvement-paired": ((gains(0.15), gains(0.15)), gains(0.05), IMPROVEMENT),
    "improvement-unpaired": (
        (gains(0.15, n=8), gains(0.15, n=8, first_trial=8)), gains(0.05, n=8, first_trial=8),
        IMPROVEMENT,
    ),
    "success-13-tasks": (
        (successes(0.8, tasks=13), successes(0.8, tasks=13)), successes(0.3, tasks=13),
        SUCCESS,
    ),
}


# The permutation tests' scenarios cost a minute of enumeration; success's run in CI.
@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.expensive] if "improvement" in name else [])
    for name in SCENARIOS])
def test_false_alarms_stay_rare_and_regressions_trip(name: str) -> None:
    (base, rerun), worse, limits = SCENARIOS[name]
    assert trip_rate(base, rerun, limits, RUNS) < 0.05
    assert trip_rate(base, rerun, NO_FALL, RUNS) < LEVEL_BOUND
    assert trip_rate(base, worse, limits, runs=100) > 0.85


def test_a_gate_with_too_few_trials_says_it_could_not_trip() -> None:
    # 100% -> 0% on two paired trials: at best p = 1/4, never below alpha.
    report = compare(make_run([True, True]), make_run([False, False]), SUCCESS)
    assert not report.tripped
    assert report.summary.startswith("gate passed only because it could not trip")
    assert report.powerless == [
        "titanic/react/gpt-4 success: 2 vs 2 trials can never give p < 0.05 after Holm's "
        "correction over 1 tests (at best p = 0.25); run at least 5 trials per side"
    ]
    assert comparison_lines(report)[-1] == (report.powerless[0], True)
    # Six paired trials can reach p = 1/64: the gate has teeth and says nothing more.
    six = compare(make_run([True] * 6), make_run([True] * 6), SUCCESS)
    assert six.powerless == [] and six.summary.startswith("gate passed: no significant fall")
