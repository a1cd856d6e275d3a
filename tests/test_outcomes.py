"""Each outcome means something: passed, failed, error, skipped (DESIGN.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SENTENCE = re.compile(
    r"guess: error=[\d.]+ is [\d.]+% (better|worse) than baseline [\d.]+ \(needed 10%\)"
)


def test_the_oracle_passes_and_its_record_says_why(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setenv("COLUMNS", "200")  # room for the mean improvement
    result = pytester.runpytest("tasks", "--agent=oracle", *mlab_args)
    result.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["outcome"] == "passed" and record["success"] is True
    assert record["improvement"] > 0.10
    assert record["baseline_n"] == 2
    assert record["ended_by"] == "final answer"
    assert record["steps"] == 3
    assert SENTENCE.fullmatch(record["message"])
    # No error nor skip: those columns, 0 on every row, are left out and named.
    result.stdout.fnmatch_lines(["guess*oracle*1/1*+*%*",
                                 "columns left out: *errors, skipped (0 on every row)"])


def test_the_baseline_fails_with_one_sentence_with_the_numbers(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    result = pytester.runpytest("tasks", "--agent=baseline", *mlab_args)
    result.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["outcome"] == "failed"
    assert SENTENCE.fullmatch(record["message"]), record["message"]
    assert record["improvement"] == pytest.approx(0.0)
    result.stdout.fnmatch_lines([f"*{record['message']}"])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("GarbageAgent", "guess: the agent ended its turn without a Final Answer; invalid "
                         "submission: submission.txt does not hold a number"),
        ("CrashingAgent", "guess: the agent raised KeyError: 'plan' after 1 steps"),
    ],
)
def test_a_bad_trial_fails_with_its_reason(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    agent: str,
    message: str,
) -> None:
    recorded("guess")
    result = pytester.runpytest("tasks", f"--agent=scripted_agents:{agent}", *mlab_args)
    result.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["message"] == message


def test_a_read_only_file_changed_by_a_script_invalidates_the_trial(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    """Without isolation the file system lets the change through; the hash check does not."""
    recorded("guess")
    pytester.runpytest(
        "tasks", "--agent=scripted_agents:TamperingAgent", "--mlab-isolation=none",
        "--mlab-allow-weak-sandbox", *mlab_args
    ).assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["message"] == "guess: invalid submission: read-only file data.txt was changed"


def test_a_limit_ending_the_trial_before_any_submission_fails_it(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    result = pytester.runpytest(
        "tasks", "--agent=scripted_agents:LoopingAgent", "--max-steps=4", *mlab_args
    )
    result.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["ended_by"] == "step limit" and record["steps"] == 4
    assert record["message"].startswith(
        "guess: the step limit ended the trial; invalid submission: submission.txt is missing")


def test_a_file_named_like_the_private_answers_changes_nothing(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    pytester.runpytest(
        "tasks", "--agent=oracle", "--agent=scripted_agents:DecoyAgent", *mlab_args
    ).assert_outcomes(passed=2)
    scores = {record["agent"]: record["score"] for record in read_results()}
    assert scores["scripted_agents:DecoyAgent"] == scores["oracle"]


@pytest.mark.parametrize(
    ("breakage", "error_class"),
    [
        ("prepare.py", "PrepareError"),
        ("score.py", "ScorerError"),
    ],
)
def test_a_harness_fault_is_an_error_not_a_failure(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    breakage: str,
    error_class: str,
) -> None:
    root = recorded("guess")
    script = root / breakage
    script.write_text(script.read_text() + "\nraise RuntimeError('disk on fire')\n")
    result = pytester.runpytest("tasks", "--agent=oracle", *mlab_args)
    result.assert_outcomes(errors=1)
    (record,) = read_results()
    assert record["outcome"] == "error" and record["error_class"] == error_class
    assert "RuntimeError: disk on fire" in record["message"]
    result.stdout.fnmatch_lines([f"{error_class}: guess: *RuntimeError: disk on fire"])
    result.stdout.no_fnmatch_line("*pytest_mlab/*.py:*: *Error")  # no harness frames


def test_a_conftest_can_override_a_fixture(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    pytester.makeconftest(
        """
        import pytest
        from scripted_agents import GarbageAgent

        @pytest.fixture
        def mlab_agent(mlab_trial_spec):
            return GarbageAgent(None)
        """
    )
    pytester.runpytest("tasks", "--agent=oracle", *mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["message"] == ("guess: the agent ended its turn without a Final Answer; "
                                 "invalid submission: submission.txt does not hold a number")


def test_a_plugin_can_supply_the_sandbox(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    pytester.makeconftest(
        """
        from pytest_mlab.sandbox import LocalSandbox, SandboxSpec

        class Labelled:
            isolation = "labelled-for-test"

            def __init__(self, root):
                self.inner = LocalSandbox(SandboxSpec(root))

            def run(self, argv, timeout):
                return self.inner.run(argv, timeout)

        def pytest_mlab_make_sandbox(config, task, workspace, gpus):
            return Labelled(workspace.root)
        """
    )
    pytester.runpytest("tasks", "--agent=oracle", *mlab_args).assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["isolation"] == "labelled-for-test"


def test_a_third_party_sandbox_is_one_class_and_one_entry_point(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    recorded("guess")
    # An installed distribution, as pip leaves one: a module and its entry point.
    site = pytester.mkdir("site")
    (site / "labelled_sandbox.py").write_text(
        "from pytest_mlab.sandbox import LocalSandbox\n\n"
        "class Labelled(LocalSandbox):\n"
        "    def __init__(self, spec):\n"
        "        super().__init__(spec)\n"
        "        self.isolation = 'labelled-' + spec.workspace.name\n"
    )
    info = site / "labelled_sandbox-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: labelled-sandbox\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pytest_mlab.sandboxes]\nlabelled = labelled_sandbox:Labelled\n"
    )
    monkeypatch.setenv("PYTHONPATH", f"{site}{os.pathsep}{pytester.path}")
    run = pytester.runpytest_subprocess("tasks", "--agent=oracle", "--mlab-sandbox=labelled",
                                        *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["isolation"] == "labelled-tasks_guess_task.toml_guess_oracle-t0"
    run.stdout.fnmatch_lines(["mlab: sandbox=labelled*"])


def test_an_unknown_sandbox_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--mlab-sandbox=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--mlab-sandbox: unknown sandbox 'nope'; choose one of: *docker*local*"]
    )


def test_a_failure_of_a_run_started_outside_its_rootdir_is_summed_up_whole(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch, off_ci: None,
) -> None:
    """pytest 9.2's summary names items relative to where it was started; the plugin's
    whole-sentence lines asked it that with a string and crashed the summary."""
    recorded("guess")
    monkeypatch.setenv("COLUMNS", "60")  # narrow: pytest cuts the summary line
    result = pytester.runpytest("tasks", "--agent=baseline", "--rootdir=tasks", "-rf",
                                *mlab_args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines([
        "FAILED tasks/guess/task.toml::guess[[]baseline-t0[]] - *",
        "FAILED guess[[]baseline-t0[]] - error=* is 0.0% better than baseline * (needed 10%)"])
