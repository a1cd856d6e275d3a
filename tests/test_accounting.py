"""Every selected trial is counted: lost workers, interruptions, resumes, --lf and node ids.

The chaos test runs with -n 2, kills a worker mid-trial and interrupts the controller,
then resumes: every selected trial ends in results.json exactly once, with a verdict.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).parent / "examples"


def _results(path: Path) -> dict[str, Any]:
    (results,) = path.glob("reports/*/results.json")
    loaded: dict[str, Any] = json.loads(results.read_text())
    return loaded


def _command(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "tasks", "-p", "no:cacheprovider",
            f"--mlab-cache-dir={root / 'cache'}", "--mlab-report-dir=reports", *args]


@pytest.fixture
def chaos(pytester: pytest.Pytester, recorded: Callable[[str], Path],
          monkeypatch: pytest.MonkeyPatch) -> Path:
    recorded("guess")
    shutil.copy(EXAMPLES / "chaos_agents.py", pytester.path)
    marks = pytester.mkdir("marks")
    monkeypatch.setenv("MLAB_CHAOS_DIR", str(marks))
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    shutil.rmtree(pytester.path / "reports", ignore_errors=True)
    return pytester.path


def _wait_for(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the run did not get there in time"
        time.sleep(0.2)


@pytest.mark.slow
def test_a_lost_worker_and_an_interrupt_lose_no_trial_and_a_resume_completes(
    chaos: Path,
) -> None:
    args = ("--agent=chaos_agents:KillerAgent", "--mlab-trials=6", "-n", "2")
    # A shell that started these tests in the background left SIGINT ignored, which the
    # run would inherit: it gets the default back, so the interrupt below reaches it.
    run = subprocess.Popen(_command(chaos, *args), cwd=chaos, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    finished = lambda: len(list(chaos.glob("reports/*/traces/*.result.json")))  # noqa: E731
    _wait_for(lambda: (chaos / "marks" / "killed").exists() and finished() >= 2, 120)
    run.send_signal(signal.SIGINT)
    output = run.communicate(timeout=120)[0]
    first = _results(chaos)
    assert len(first["results"]) == 6, output
    assert not first["run"]["complete"] and first["run"]["interrupted"]
    crashed = [r for r in first["results"] if r["error_class"] == "WorkerCrashed"]
    assert len(crashed) == 1 and "crashed" in crashed[0]["message"]
    assert f"--mlab-resume={first['run']['run_id']}" in first["run"]["resume_command"]
    assert "run incomplete (it was interrupted)" in output and "resume with: " in output
    # The resume command the run printed finishes it.
    (chaos / "marks" / "released").touch()
    resume = first["run"]["resume_command"].split()[1:]
    again = subprocess.run([sys.executable, "-m", "pytest", *resume], cwd=chaos,
                           capture_output=True, text=True, timeout=300)
    final = _results(chaos)
    ids = [r["nodeid"] for r in final["results"]]
    assert len(ids) == len(set(ids)) == 6, again.stdout
    assert {r["outcome"] for r in final["results"]} == {"passed"}, again.stdout
    assert final["run"]["complete"] and final["run"]["started"] == first["run"]["started"]
    assert final["run"]["command"] == first["run"]["command"]
    assert [s["interrupted"] for s in final["run"]["sessions"]] == [True, False]
    # The report's counts add up to every selected trial.
    page = (next(chaos.glob("reports/*/report.html"))).read_text()
    assert "6 trials: <span class=\"passed\">6 passed</span>" in page


def test_a_resume_with_other_options_is_refused_in_one_sentence(chaos: Path) -> None:
    first = subprocess.run(_command(chaos, "--agent=chaos_agents:SlowGoodAgent"),
                           cwd=chaos, capture_output=True, text=True, timeout=120)
    run_id = _results(chaos)["run"]["run_id"]
    refused = subprocess.run(
        _command(chaos, "--agent=chaos_agents:SlowGoodAgent", "--mlab-trials=2",
                 f"--mlab-resume={run_id}"), cwd=chaos, capture_output=True, text=True,
        timeout=120,
    )
    assert refused.returncode == pytest.ExitCode.USAGE_ERROR, first.stdout
    assert (f"--mlab-resume: run {run_id} was made with trials 1, this session has 2; resume "
            "it with the same selection and options") in refused.stderr
    # The run it refused is untouched.
    assert len(_results(chaos)["results"]) == 1


def test_lf_and_ff_and_a_copied_node_id_need_no_agent_option(
    pytester: pytest.Pytester, chaos: Path, mlab_args: list[str],
) -> None:
    mlab = [a for a in mlab_args if a != "no:cacheprovider" and a != "-p"]
    pytester.runpytest("tasks", "--agent=oracle", "--agent=scripted_agents:GarbageAgent",
                       "--mlab-trials=2", *mlab).assert_outcomes(passed=2, failed=2)
    rerun = pytester.runpytest("tasks", "--lf", *mlab)
    rerun.assert_outcomes(failed=2)
    rerun.stdout.fnmatch_lines(["*run-last-failure: rerun previous 2 failures*"])
    first = pytester.runpytest("tasks", "--ff", "-v", *mlab)
    first.stdout.fnmatch_lines(["*GarbageAgent-t0*", "*GarbageAgent-t1*"])
    copied = pytester.runpytest("tasks/guess/task.toml::guess[oracle-t1]", *mlab)
    copied.assert_outcomes(passed=1)


def test_a_timeout_ends_the_trial_with_a_scored_record_in_one_line(
    pytester: pytest.Pytester, chaos: Path, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    for method in ("signal", "thread"):
        run = pytester.runpytest_subprocess(
            "tasks", "--agent=scripted_agents:LoopingAgent", "--timeout=3",
            f"--timeout-method={method}", "--max-steps=100000", *mlab_args,
        )
        run.assert_outcomes(errors=1)
        (record,) = read_results()
        assert record["error_class"] == "Timeout" and record["outcome"] == "error"
        assert record["ended_by"] == "stopped" and record["steps"] > 0 and record["trace"]
        assert record["message"].startswith(
            "guess: the pytest timeout of 3 s stopped the trial after "), record["message"]
        # One line, no thread dump.
        run.stdout.fnmatch_lines(["*ERROR at setup of guess*",
                                  "timed out: guess: the pytest timeout of 3 s stopped the*",
                                  "    (a trial runs in its item's setup: hence pytest's "
                                  "'ERROR at setup' for a trial that timed out)",
                                  "*= mlab =*",
                                  "ERROR *guess* - timed o*"])
        assert "Stack of" not in run.stdout.str() and "Thread" not in run.stdout.str()


def test_an_agent_that_raises_keeps_its_traceback(
    pytester: pytest.Pytester, chaos: Path, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    pytester.runpytest("tasks", "--agent=chaos_agents:RaisingAgent", *mlab_args)
    (record,) = read_results()
    assert record["message"].startswith("guess: the agent raised LookupError: no plan left")
    saved = Path(record["traceback"]).read_text()
    assert "in _plan" in saved and saved.rstrip().endswith("LookupError: no plan left")
    page = next(pytester.path.glob("reports/*/report.html")).read_text()
    assert "The agent's traceback" in page and "in _plan" in page


def test_markers_select_trials(pytester: pytest.Pytester, chaos: Path,
                               mlab_args: list[str]) -> None:
    manifest = pytester.path / "tasks" / "guess" / "task.toml"
    manifest.write_text(manifest.read_text().replace("requirements = []",
                                                     'requirements = []\ntags = ["tabular"]'))
    chosen = pytester.runpytest("tasks", "--agent=oracle", "-m", "tabular and not mlab_gpu",
                                "--collect-only", "-q", *mlab_args)
    chosen.stdout.fnmatch_lines(["*guess[[]oracle-t0]*"])
    none = pytester.runpytest("tasks", "--agent=oracle", "-m", "mlab_llm", "--collect-only",
                              "-q", *mlab_args)
    none.stdout.fnmatch_lines(["*1 deselected*"])


def test_live_progress_rewrites_the_item_line_on_a_terminal(
    pytester: pytest.Pytester, chaos: Path, mlab_args: list[str],
) -> None:
    if shutil.which("script") is None:
        pytest.skip("the script command (util-linux) is needed for a terminal")
    command = " ".join(_command(pytester.path, "--agent=chaos_agents:SlowGoodAgent", "-v"))
    log = pytester.path / "terminal.log"
    subprocess.run(["script", "-q", "-c", command, str(log)], cwd=pytester.path,
                   capture_output=True, timeout=120, env=os.environ)
    text = log.read_text(errors="replace")
    item = "tasks/guess/task.toml::guess[chaos_agents:SlowGoodAgent-t0]"
    assert "step 3 of 10 (List Files)" in text
    assert text.count(f"{item} ") == 1 and "Captured stdout" not in text
