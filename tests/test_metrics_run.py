"""pass@k and the normalised score end to end: a real run's results.json, terminal and
report against a hand computation from its own trials, and the gate on a drop of the mean
normalised score between two real runs."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from math import comb
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest

# Each trial takes the next guess of GUESSES (a counter file keeps the place, whatever order
# the trials run in): near the held-out mean of about 50 passes, 40 is the starter's guess
# (no improvement: a failure), and a word is an invalid submission (a failure with no score).
AGENTS = '''
import os
from pathlib import Path
from typing import ClassVar


class Counted:
    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = False

    def __init__(self, context):
        pass

    def run(self, env):
        counter = Path(os.environ["GUESS_COUNTER"])
        n = int(counter.read_text()) if counter.exists() else 0
        counter.write_text(str(n + 1))
        guesses = os.environ["GUESSES"].split(",")
        guess = guesses[n % len(guesses)]
        env.execute("Write File", file_name="submission.txt", content=guess + "\\n")
        env.execute("Final Answer", final_answer=guess)
        return guess
'''
REFERENCE = [1.5, 2.5, None]
"""The reference solution's runs in the suite's validation.json: mean 2.0 (null: failed)."""


@pytest.fixture
def guessing(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., pytest.RunResult]:
    recorded("guess")
    (pytester.path / "tasks" / "validation.json").write_text(
        json.dumps({"guess": {"solution": REFERENCE}}))
    pytester.makepyfile(metric_agents=AGENTS)

    def run(guesses: str, trials: int, *args: str) -> pytest.RunResult:
        monkeypatch.setenv("GUESSES", guesses)
        monkeypatch.setenv("GUESS_COUNTER", str(pytester.path / f"counter-{guesses}"))
        return pytester.runpytest("tasks", "--agent=metric_agents:Counted",
                                  f"--mlab-trials={trials}", *mlab_args, *args)

    return run


def _newest(pytester: pytest.Pytester, name: str) -> Path:
    return max(pytester.path.glob(f"reports/*/{name}"), key=lambda p: p.stat().st_mtime_ns)


def test_results_json_carries_pass_at_k_and_normalised_scores_from_its_own_trials(
    pytester: pytest.Pytester, guessing: Callable[..., pytest.RunResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = guessing("50,40,garbage,49", 4, "--mlab-pass-k=2", "-v")
    result.assert_outcomes(passed=2, failed=2)
    run: dict[str, Any] = json.loads(_newest(pytester, "results.json").read_text())
    assert run["schema_version"] == 7
    trials = run["results"]
    assert [t["reference_mean"] for t in trials] == [2.0] * 4
    valid = [t for t in trials if t["score"] is not None]
    assert len(valid) == 3
    for t in valid:  # error: lower is better, so the scale runs from the baseline down to 2
        base = t["baseline_mean"]
        assert t["normalised_score"] == pytest.approx((t["score"] - base) / (2.0 - base))
    (invalid,) = [t for t in trials if t["score"] is None]
    assert invalid["normalised_score"] is None and not invalid["success"]

    (group,) = run["summary"]["groups"]
    n, c = 4, sum(t["success"] for t in trials)
    assert (group["n"], group["passed"], c) == (4, 2, 2)
    assert group["pass_at_k"] == pytest.approx(
        {str(k): 1 - comb(n - c, k) / comb(n, k) for k in range(1, 5)})
    assert group["pass_hat_k"] == pytest.approx(
        {str(k): comb(c, k) / comb(n, k) for k in range(1, 5)})
    gains = [t["improvement"] if t["improvement"] is not None else 0.0 for t in trials]
    assert group["best_of_k"] == pytest.approx({
        str(k): fmean(max(s) for s in itertools.combinations(gains, k)) for k in range(1, 5)})
    normalised = [t["normalised_score"] or 0.0 for t in trials]  # the invalid one: 0
    assert group["mean_normalised"] == pytest.approx(fmean(normalised))
    (agent,) = run["summary"]["agents"]
    assert agent["mean_normalised"] == pytest.approx(fmean(normalised)) and agent["tasks"] == 1

    # The terminal and the report show pass@2 (5/6 for 2 of 4) and the normalised score;
    # in 80 columns pass^2 (1/6) is left to the table -v adds under the first.
    mean = f"{fmean(normalised):.2f}"
    result.stdout.fnmatch_lines([
        "task * k * pass@k * norm. score",
        f"guess * 2 * 83% * {mean}",
        "columns left out: *pass^k*",
        "*(no room: shown below and in report.html)*",
        f"mean normalised score metric_agents:Counted: {mean} over 1 task, 95% CI *",
        "task * agent * llm * pass^k*",
        "guess * metric_agents:Counted * - * 17%*",
    ])
    html = _newest(pytester, "report.html").read_text()
    assert ">pass@k</th>" in html and ">83%</td>" in html and 'id="suite-scores"' in html


def test_the_gate_fails_on_a_drop_of_the_mean_normalised_score(
    pytester: pytest.Pytester, guessing: Callable[..., pytest.RunResult]
) -> None:
    guessing("50", 2, "--mlab-save=good").assert_outcomes(passed=2)
    # Guesses of 46 still pass (the improvement clears 10%), but they lie less than half
    # way from the starter to the reference: the success rate holds, the normalised score
    # drops.
    worse = guessing("46", 2, "--mlab-compare=good", "--mlab-compare-normalised-drop=0.1")
    worse.assert_outcomes(passed=2)
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    worse.stdout.fnmatch_lines([
        "*mlab: comparing with *0001_good.json; gate normalised:-0.1 at alpha 0.05",
        "*metric_agents:Counted * over the suite * TRIPPED",
        "gate tripped: metric_agents:Counted mean normalised score * -> * (-* over 1 task(s); "
        "limit -0.1)",
    ])
    same = guessing("50", 2, "--mlab-compare=good", "--mlab-compare-normalised-drop=0.1")
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["gate passed: no mean normalised score dropped by more than 0.1"])
    # Asked for significance too: every trial of each run gave one guess, so the runs have
    # no spread and the drop is certain (p = 0).
    tested = guessing("46", 2, "--mlab-compare=good", "--mlab-compare-normalised-drop=0.1",
                      "--mlab-compare-normalised-significant")
    assert tested.ret == pytest.ExitCode.TESTS_FAILED
    tested.stdout.fnmatch_lines([
        "*gate normalised:-0.1 (significant) at alpha 0.05",
        "gate tripped: * mean normalised score * (-* over 1 task(s), p=0 < 0.05; limit -0.1)"])


def test_significance_needs_a_tolerance(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--mlab-compare", "--mlab-compare-normalised-significant")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mlab-compare-normalised-significant needs a tolerance: "
                                 "add --mlab-compare-normalised-drop=DROP"])


def test_a_normalised_drop_needs_a_run_to_compare_with(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--mlab-compare-normalised-drop=0.1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mlab-compare-normalised-drop needs a run to compare with: "
                                 "add --mlab-compare[[]=RUN]"])
