"""Saved runs, comparison with a saved run, the gate, and the markdown summary, end to end."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mlab.analysis.saved_runs import SavedRunError, Storage
from pytest_mlab.core.results import RunInfo, RunResults

# Writes a fixed guess without running a script: the example task's held-out mean is near
# 50 (a pass), and 40 is what its starter guesses (no improvement: a failure).
GUESSER = '''
import os
from typing import ClassVar


class Guesser:
    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = False

    def __init__(self, context):
        pass

    def run(self, env):
        guess = "50" if os.environ["GATE_QUALITY"] == "good" else "40"
        env.execute("Write File", file_name="submission.txt", content=guess + "\\n")
        env.execute("Final Answer", final_answer=guess)
        return guess
'''
AGENT = "gate_agents:Guesser"
TRIALS = 6  # all six flipping gives p = 1/64, below 0.05


Run = Callable[..., pytest.RunResult]


@pytest.fixture
def run(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Run:
    """Run the example task with an agent of the given quality, six trials."""
    recorded("guess")
    pytester.makepyfile(gate_agents=GUESSER)

    def run_quality(quality: str, *args: str) -> pytest.RunResult:
        monkeypatch.setenv("GATE_QUALITY", quality)
        return pytester.runpytest(
            "tasks", f"--agent={AGENT}", f"--mlab-trials={TRIALS}", *mlab_args, *args
        )

    return run_quality


def test_saved_runs_are_numbered_copies_of_results_json(
    pytester: pytest.Pytester, run: Run
) -> None:
    first = run("good", "--mlab-save=good")
    first.assert_outcomes(passed=TRIALS)
    saved = pytester.path / ".mlab" / "runs" / "0001_good.json"
    first.stdout.fnmatch_lines([f"saved: {saved}"])
    (written,) = pytester.path.glob("reports/*/results.json")
    assert RunResults.read(saved) == RunResults.read(written)
    run("good", "--mlab-autosave", "--mlab-storage=history").assert_outcomes(passed=TRIALS)
    (autosaved,) = (pytester.path / "history").glob("0001_*.json")
    assert autosaved.stem.removeprefix("0001_") == RunResults.read(autosaved).run.run_id


def test_a_worse_run_trips_the_gate_with_one_line(pytester: pytest.Pytester, run: Run) -> None:
    run("good", "--mlab-save")
    result = run("bad", "--mlab-compare", "--mlab-compare-fail=success:-10%")
    result.assert_outcomes(failed=TRIALS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "mlab: comparing with *0001_*.json; gate success:-10% at alpha 0.05",
        # Said before the first trial: 5 of 6 paired trials falling give p = 1/32 < 0.05.
        "mlab gate: success can trip on a fall beyond the limit (-10%) that is significant "
        f"at alpha 0.05 over 1 test(s): at least guess/{AGENT} 83% (6 vs 6 trials, paired)",
        # Over the suite: p = 6.5/7, 1.645 * sqrt(p (1 - p) (1/6 + 1/6)) = 0.245.
        f"mlab gate: over the suite, {AGENT}'s success (the mean over 1 task(s)) can show a "
        "fall of 24% or more as significant at alpha 0.05 with the selected trials",
        f"gate tripped: guess/{AGENT} success 6/6 -> 0/6 (-100%, p=0.016; limit -10%)",
    ])
    assert result.stdout.str().count("gate tripped:") == 1
    newest = max(pytester.path.glob("reports/*/report.html"), key=lambda p: p.stat().st_mtime_ns)
    page = newest.read_text()
    assert '<section id="comparison">' in page
    assert (f'<li class="tripped">gate tripped: guess/{AGENT} success 6/6 -&gt; 0/6 '
            "(-100%, p=0.016; limit -10%)</li>") in page
    # The comparison arrives as data: the tripped row is marked, not found by its text.
    row = f'<tr class="tripped"><td class="text">guess/{AGENT}</td><td class="text">success'
    assert row in page


def test_the_header_says_when_flagged_trials_are_left_out(
    pytester: pytest.Pytester, run: Run
) -> None:
    run("good", "--mlab-save")
    result = run("good", "--mlab-compare", "--mlab-compare-leave-flagged")
    result.stdout.fnmatch_lines([
        "mlab: comparing with *0001_*.json; without the trials the rule checks flagged"])


def test_a_rerun_of_the_same_quality_passes_even_with_failed_trials(
    pytester: pytest.Pytester, run: Run
) -> None:
    run("bad", "--mlab-save=bad").assert_outcomes(failed=TRIALS)
    result = run("bad", "--mlab-compare=bad", "--mlab-compare-fail=success:-10%",
                 "--mlab-compare-fail=improvement:-5%")
    result.assert_outcomes(failed=TRIALS)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        "gate passed: no significant fall beyond success:-10%, improvement:-5% (alpha 0.05)",
    ])
    assert "gate tripped" not in result.stdout.str()
    # Without a limit the comparison is shown, and failed trials fail the session as ever.
    plain = run("bad", "--mlab-compare=0001")
    assert plain.ret == pytest.ExitCode.TESTS_FAILED
    plain.stdout.fnmatch_lines(["compared with 0001_bad.json", f"guess/{AGENT}*success*0/6*0/6*"])


def test_a_gate_that_compares_nothing_fails(
    pytester: pytest.Pytester, run: Run, mlab_args: list[str]
) -> None:
    run("good", "--mlab-save")
    result = pytester.runpytest(
        "tasks", "--agent=oracle", "--mlab-compare", "--mlab-compare-fail=success:-10%",
        *mlab_args,
    )
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        f"not run now: guess/{AGENT}", "new: guess/oracle",
        "gate not applied: no task x agent x llm ran in both runs",
    ])


def test_the_markdown_summary_holds_the_table_and_the_verdict(
    pytester: pytest.Pytester, run: Run
) -> None:
    run("good", "--mlab-save=main")
    (baseline,) = pytester.path.glob("reports/*/results.json")
    run("bad", f"--mlab-compare={baseline.relative_to(pytester.path)}",
        "--mlab-compare-fail=success:-10%", "--mlab-report-md=ci/summary.md")
    text = (pytester.path / "ci" / "summary.md").read_text()
    assert f"| guess | {AGENT} | - | 0/6 | +0.0% | 6 | 0% | - | 0 | 6 | 0 | 0 |" in text
    assert f"### Compared with `{baseline.relative_to(pytester.path)}`" in text
    row = f"| guess | {AGENT} | - | success | 6/6 | 0/6 | -100% | 0.016 | 0.016 | McNemar |"
    assert row in text
    assert "**gate tripped on 1 comparison(s) (success:-10%)**" in text
    assert f"- `gate tripped: guess/{AGENT} success 6/6 -> 0/6" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--mlab-compare", "--mlab-compare-fail=speed:-10%"],
            "*argument --mlab-compare-fail: expected METRIC:-N% or METRIC:-FRACTION, METRIC "
            "being success or improvement (e.g. success:-10% or improvement:-0.05), "
            "got 'speed:-10%'",
        ),
        (["--mlab-compare-fail=success:-10%"], "*--mlab-compare-fail needs a run to compare "
         "with: add --mlab-compare[[]=RUN]"),
        (["--mlab-compare=7"], "*--mlab-compare: no saved run '7' in *runs (latest: none)*"),
        (["--mlab-compare", "--mlab-compare-fail=success:-1%"],
         "*--mlab-compare: no saved runs in *runs; save one with --mlab-save"),
        (["--mlab-save=a/b"], "*argument --mlab-save: expected a name of letters*got 'a/b'"),
        (["--mlab-compare-alpha=5"], "*expected a probability such as 0.05, got '5'"),
    ],
)
def test_a_bad_history_option_is_one_usage_line(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str()


def test_bare_compare_with_nothing_saved_only_warns(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest("--mlab-compare", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*MlabWarning: --mlab-compare: no saved runs in *"])


@pytest.mark.slow
def test_under_xdist_the_controller_alone_saves_and_gates(
    pytester: pytest.Pytester, run: Run, mlab_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run("good", "--mlab-save=good")
    monkeypatch.setenv("GATE_QUALITY", "bad")
    result = pytester.runpytest_subprocess(
        "tasks", f"--agent={AGENT}", f"--mlab-trials={TRIALS}", "-n", "2", "--mlab-save=bad",
        "--mlab-compare=good", "--mlab-compare-fail=success:-10%", *mlab_args,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"gate tripped: guess/{AGENT} success 6/6 -> 0/6 *"])
    names = sorted(p.name for p in (pytester.path / ".mlab" / "runs").iterdir())
    assert names == ["0001_good.json", "0002_bad.json"]


# --- the storage on its own --------------------------------------------------------------


def _results(run_id: str) -> RunResults:
    info = RunInfo(run_id=run_id, started="", finished="", command=[], machine="m",
                   pytest_mlab_version="0")
    return RunResults(run=info, results=[])


def test_the_storage_finds_runs_by_number_name_and_path(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "runs")
    for name in ("main", "", "main"):
        storage.save(_results(f"run{len(storage.runs()) + 1}"), name)
    assert [p.path.name for p in storage.runs()] == [
        "0001_main.json", "0002_run2.json", "0003_main.json"
    ]
    assert storage.find("", tmp_path).name == "0003_main.json"
    assert storage.find("2", tmp_path).name == "0002_run2.json"
    assert storage.find("0001", tmp_path).name == "0001_main.json"
    assert storage.find("main", tmp_path).name == "0003_main.json"
    assert storage.find("run2", tmp_path).name == "0002_run2.json"
    report = tmp_path / "reports" / "run9"
    _results("run9").write(report / "results.json")
    assert storage.find("reports/run9", tmp_path) == report / "results.json"
    assert storage.find("reports/run9/results.json", tmp_path) == report / "results.json"
    with pytest.raises(SavedRunError, match=r"no saved run 'nope' .*latest: 0001_main, 0002"):
        storage.find("nope", tmp_path)


def test_a_saved_run_that_is_not_a_run_is_a_usage_error(pytester: pytest.Pytester) -> None:
    bad = pytester.path / "bad.json"
    bad.write_text(json.dumps({"run": {}}))
    result = pytester.runpytest("--mlab-compare=bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mlab-compare: cannot read the run in *bad.json: *"])
