"""A trial is judged as MLAgentBench's eval judged a run: its final workspace is scored
however the agent's turn ended, and ``ended_by`` says why it ended; with
``--mlab-require-final-answer`` only a trial with a Final Answer may pass. Harness faults
stay errors, and an agent that raised is not scored (docs/paper-parity.md, Limits)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply, say
from test_llm_agents import GUESS_SOLUTION, answer, llm_args, trace_of

from pytest_mlab.llm.client import import_litellm

import_litellm()  # once per test process, as test_llm_agents explains

BETTER = r"error=[\d.]+ is [\d.]+% better than baseline [\d.]+ \(needed 10%\)"
REQUIRED = "which --mlab-require-final-answer requires"
LOG = "Append Summary to Research Log"


def step_limited_trial() -> list[Reply]:
    """Retrieval mode with 4 steps: the edit and the run each cost a log step too, so the
    step limit ends the trial before the agent's third action, which, as in the original,
    it asks the model for only while a step is left; it never submits."""
    return [
        answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                    "edit_instruction": "guess the mean of data.txt"}),
        say("```python\n" + GUESS_SOLUTION.read_text() + "```\n"),
        say("[Reasoning]: edit\n[Action]: edited train.py\n[Observation]: the diff"),
        answer("Execute Script", {"script_name": "train.py"}),
        say("[Reasoning]: run\n[Action]: ran train.py\n[Observation]: guessed the mean"),
    ]


def react_step_limited(server: LLMServer, trials: int = 1) -> list[str]:
    server.script.replies += step_limited_trial() * trials
    return [*llm_args(server), "--mlab-retrieval", "--max-steps=4", f"--mlab-trials={trials}"]


def test_a_react_trial_ended_by_the_step_limit_passes_on_its_workspace(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    """The issue's case: --mlab-retrieval --max-steps=4, a workspace that beats the bar."""
    recorded("guess")
    run = pytester.runpytest("tasks", *react_step_limited(server),
                             "--mlab-report-md=summary.md", *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    assert [s["action"] for s in trace_of(record)] == [
        "Edit Script (AI)", LOG, "Execute Script", LOG]
    assert record["ended_by"] == "step limit" and record["steps"] == 4
    assert record["final_answer_required"] is False
    assert record["outcome"] == "passed" and record["success"] is True
    assert record["improvement"] >= 0.10
    assert re.fullmatch(f"guess: the step limit ended the trial; {BETTER}", record["message"])
    assert len(server.requests) == 5 and not server.script.replies
    # The terminal table and the markdown report count it as a success.
    run.stdout.fnmatch_lines(["guess*react*gpt-4*1/1*"])
    assert "| guess | react | gpt-4 | 1/1 |" in (pytester.path / "summary.md").read_text()


def test_with_a_final_answer_required_the_same_trial_fails_and_says_why(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    recorded("guess")
    run = pytester.runpytest("tasks", *react_step_limited(server),
                             "--mlab-require-final-answer", *mlab_args)
    run.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["ended_by"] == "step limit" and record["success"] is False
    assert record["final_answer_required"] is True
    assert record["improvement"] >= 0.10  # scored all the same, and the numbers are shown
    assert re.fullmatch(f"guess: the step limit ended the trial before any Final Answer, "
                        f"{REQUIRED}; {BETTER}", record["message"])
    run.stdout.fnmatch_lines(["mlab: *threshold=task's own, else 10% (Final Answer required)*"])


def test_the_default_agent_at_its_last_step_is_ended_by_the_step_limit_either_way(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    """Without --mlab-retrieval the research agent's count of its own steps reaches the
    trial's step limit at the same step as the environment's, so the agent returns
    before the environment could say so: the ending is still the step limit."""
    recorded("guess")
    trajectory = [
        answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                    "edit_instruction": "guess the mean of data.txt"}),
        say("```python\n" + GUESS_SOLUTION.read_text() + "```\n"),
        answer("Execute Script", {"script_name": "train.py"}),
    ]
    server.script.replies += trajectory
    pytester.runpytest("tasks", *llm_args(server), "--max-steps=2", *mlab_args
                       ).assert_outcomes(passed=1)
    (record,) = read_results()
    assert [s["action"] for s in trace_of(record)] == ["Edit Script (AI)", "Execute Script"]
    assert record["ended_by"] == "step limit" and record["steps"] == 2
    assert re.fullmatch(f"guess: the step limit ended the trial; {BETTER}", record["message"])
    assert len(server.requests) == 3 and not server.script.replies
    server.script.replies += trajectory
    pytester.runpytest("tasks", *llm_args(server), "--max-steps=2",
                       "--mlab-require-final-answer", *mlab_args).assert_outcomes(failed=1)
    (strict,) = read_results()
    assert strict["ended_by"] == "step limit" and strict["success"] is False
    assert re.fullmatch(f"guess: the step limit ended the trial before any Final Answer, "
                        f"{REQUIRED}; {BETTER}", strict["message"])


def test_the_gate_compares_success_only_between_runs_judged_by_one_rule(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    server: LLMServer,
) -> None:
    """The step-limited passes count; a strict run's fall against them is the rule's, so
    the gate refuses it, and compares strict runs with strict runs."""
    recorded("guess")
    pytester.runpytest("tasks", *react_step_limited(server, trials=5), "--mlab-save=default",
                       *mlab_args).assert_outcomes(passed=5)
    strict = ["tasks", "--mlab-require-final-answer", "--mlab-compare-fail=success:-10%"]
    across = pytester.runpytest(*strict, *react_step_limited(server, trials=5),
                                "--mlab-compare=default", "--mlab-save=strict", *mlab_args)
    across.assert_outcomes(failed=5)
    assert across.ret == pytest.ExitCode.TESTS_FAILED
    across.stdout.fnmatch_lines([
        "*gate cannot compare: guess/react/gpt-4 success was judged by other rules (baseline "
        "run: threshold +10%; this run: threshold +10%, Final Answer required)*"])
    alike = pytester.runpytest(*strict, *react_step_limited(server, trials=5),
                               "--mlab-compare=strict", *mlab_args)
    alike.assert_outcomes(failed=5)
    assert alike.ret == pytest.ExitCode.OK
    alike.stdout.fnmatch_lines(["*guess/react/gpt-4*success*0/5*0/5*McNemar*", "*gate passed*"])


def test_a_summary_too_long_for_the_fast_model_ends_the_turn_and_the_workspace_counts(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    """The original's summariser had no retry: the error ended its run with no final files.
    Ours ends the turn the same way, and the workspace is scored by the issue's rule."""
    recorded("guess")
    noisy = GUESS_SOLUTION.read_text() + "print('x' * 6000)\n"
    server.script.replies += [
        answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                    "edit_instruction": "guess the mean, and say a lot"}),
        say(f"```python\n{noisy}```\n"),
        answer("Execute Script", {"script_name": "train.py"}),
        Reply(status=400, content="This model's maximum context length is 8192 tokens. "
                                  "However, your messages resulted in 9000 tokens."),
    ]
    pytester.runpytest("tasks", *llm_args(server), *mlab_args).assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["ended_by"] == "prompt too long" and record["steps"] == 2
    assert server.requests[-1]["temperature"] == 0.01  # the refused call was the summary's
    assert re.fullmatch(f"guess: a prompt too long for the model ended the trial; {BETTER}",
                        record["message"])


AGENTS = textwrap.dedent('''
    """Agents that make the guess task's workspace beat the bar, then end their turn in
    one way each."""
    import time
    from typing import ClassVar

    from pytest_mlab import PromptTooLong

    SOLUTION = {solution!r}


    class _Improves:
        uses_llm: ClassVar[bool] = False
        needs_solution: ClassVar[bool] = False

        def __init__(self, context):
            self.context = context

        def run(self, env):
            env.execute("Write File", file_name="train.py", content=SOLUTION)
            env.execute("Execute Script", script_name="train.py")
            return self.then(env)


    class Stops(_Improves):
        def then(self, env):
            return "good enough"


    class OutOfTime(_Improves):
        def then(self, env):
            while True:
                time.sleep(0.2)
                env.execute("List Files", dir_path=".")


    class OutOfBudget(_Improves):
        uses_llm: ClassVar[bool] = True

        def then(self, env):
            while True:
                env.llm.complete([{{"role": "user", "content": "anything more?"}}])


    class TooLong(_Improves):
        def then(self, env):
            raise PromptTooLong("the model's context is full")


    class Crashes(_Improves):
        def then(self, env):
            raise KeyError("plan")


    class ProviderFails(_Improves):
        uses_llm: ClassVar[bool] = True

        def then(self, env):
            env.llm.complete([{{"role": "user", "content": "provider, fail"}}])
''')

ENDED = {
    "Stops": ("agent returned", "the agent ended its turn without a Final Answer"),
    "OutOfTime": ("time limit", "the time limit ended the trial"),
    "OutOfBudget": ("LLM budget", "the LLM budget ended the trial"),
    "TooLong": ("prompt too long", "a prompt too long for the model ended the trial"),
}


def run_endings(pytester: pytest.Pytester, server: LLMServer, mlab_args: list[str],
                read_results: Callable[[], list[dict[str, Any]]],
                **outcomes: int) -> dict[str, dict[str, Any]]:
    """Each agent's record, by the agent's class name."""
    pytester.makepyfile(ending_agents=AGENTS.format(solution=GUESS_SOLUTION.read_text()))
    server.script.respond = lambda request: (
        Reply(status=500) if "provider, fail" in str(request["messages"]) else say("ok"))
    agents = [f"--agent=ending_agents:{name}" for name in
              ("Stops", "OutOfTime", "OutOfBudget", "TooLong", "Crashes", "ProviderFails")]
    run = pytester.runpytest(
        "tasks", *agents, "--llm=gpt-4", f"--mlab-llm-api-base={server.url}",
        "--mlab-llm-retries=0", "--mlab-max-tokens=20", "--max-time=6", "--max-steps=200",
        *mlab_args)
    run.assert_outcomes(**outcomes)
    return {r["agent"].split(":")[1]: r for r in read_results()}


def _faults_stay_what_they_were(records: dict[str, dict[str, Any]]) -> None:
    crashed = records["Crashes"]
    assert crashed["outcome"] == "failed" and crashed["score"] is None
    assert crashed["message"] == "guess: the agent raised KeyError: 'plan' after 2 steps"
    fault = records["ProviderFails"]
    assert fault["outcome"] == "error" and fault["success"] is False
    assert fault["ended_by"] == "LLM error" and fault["error_class"] == "InternalServerError"
    assert fault["improvement"] >= 0.10  # scored as far as it got, and still an error


def test_every_ending_scores_the_workspace_and_names_itself(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    recorded("guess")
    records = run_endings(pytester, server, mlab_args, read_results, passed=4, failed=1,
                          errors=1)
    for name, (ended_by, words) in ENDED.items():
        record = records[name]
        assert record["ended_by"] == ended_by, (name, record["message"])
        assert record["outcome"] == "passed" and record["success"] is True, record["message"]
        assert re.fullmatch(f"guess: {words}; {BETTER}", record["message"]), record["message"]
    _faults_stay_what_they_were(records)


def test_with_a_final_answer_required_every_such_ending_fails(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    """Required by the ini key here; the option's own test is the react trial's above."""
    recorded("guess")
    pytester.makeini("[pytest]\nmlab_require_final_answer = true\n")
    records = run_endings(pytester, server, mlab_args, read_results, failed=5, errors=1)
    for name, (ended_by, words) in ENDED.items():
        record = records[name]
        assert record["ended_by"] == ended_by and record["outcome"] == "failed", name
        assert record["improvement"] >= 0.10
        if ended_by != "agent returned":
            words += " before any Final Answer"
        assert re.fullmatch(f"guess: {words}, {REQUIRED}; {BETTER}", record["message"])
    _faults_stay_what_they_were(records)


def test_a_mistyped_ini_switch_is_one_sentence(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmlab_require_final_answer = sure\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*ini key mlab_require_final_answer: expected true or false, got 'sure'"])
