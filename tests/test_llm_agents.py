"""Whole trials of the LLM-backed agents against a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply, say

from pytest_mlab.llm.client import import_litellm

# Imported once for the whole test process: when an inline pytester run is the first to
# import litellm, pytester's cleanup of sys.modules afterwards leaves importlib.metadata
# finding no distributions, so the next inline run loads no plugins at all.
import_litellm()

GUESS_SOLUTION = (Path(__file__).parent / "examples" / "guess" / "solution" / "train.py")


def llm_args(server: LLMServer) -> list[str]:
    return ["--agent=react", "--llm=gpt-4", f"--mlab-llm-api-base={server.url}",
            "--mlab-llm-backoff=0.01", "--mlab-llm-timeout=20"]


def answer(action: str, action_input: dict[str, Any], thought: str = "next") -> Reply:
    return say(
        f"Reflection: so far so good\nResearch Plan and Status: 1. measure 2. improve\n"
        f"Fact Check: nothing confirmed yet\nThought: {thought}\nAction: {action}\n"
        f"Action Input: {json.dumps(action_input)}"
    )


def research_script() -> list[Reply]:
    """Rate-limited three times, one unreadable answer, then look, edit, run, submit."""
    return [
        Reply(status=429), Reply(status=429), Reply(status=429),
        say("I would like to look at the files first."),
        answer("List Files", {"dir_path": "."}),
        answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                    "edit_instruction": "guess the mean of data.txt"}),
        say("Here is the edited script:\n```python\n" + GUESS_SOLUTION.read_text() + "```\n"),
        answer("Execute Script", {"script_name": "train.py"}),
        answer("Final Answer", {"final_answer": "guessed the training mean"}),
    ]


def trace_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    lines = Path(record["trace"]).read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_react_edits_runs_and_submits_then_replays_without_the_server(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    recorded("guess")
    server.script.replies += research_script()
    cache = ["--mlab-llm-cache-dir=llm-cache"]
    run = pytester.runpytest("tasks", *llm_args(server), "--mlab-llm-cache=record", *cache,
                             *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    steps = trace_of(record)
    assert [s["action"] for s in steps] == [
        "List Files", "Edit Script (AI)", "Execute Script", "Final Answer"]
    assert "guess the mean" not in (pytester.path / "tasks/guess/env/train.py").read_text()
    assert "+values = [float(line)" in steps[1]["observation"]  # the diff came back
    assert record["ended_by"] == "final answer" and record["steps"] == 4
    assert len(server.requests) == 9  # 3 rate limits, 5 answers, 1 edit
    # Usage: per step in the trace, per trial in the record, priced as gpt-4.
    assert record["tokens_in"] == sum(s["usage"]["tokens_in"] for s in steps) > 0
    assert record["tokens_out"] == sum(s["usage"]["tokens_out"] for s in steps) > 0
    expected = record["tokens_in"] * 30e-6 + record["tokens_out"] * 60e-6
    assert record["cost"] == pytest.approx(expected)
    assert steps[1]["usage"]["llm_calls"] == 2  # its answer and the edit model's

    run = pytester.runpytest("tasks", *llm_args(server), "--mlab-llm-cache=replay", *cache,
                             *mlab_args)
    run.assert_outcomes(passed=1)
    (replayed,) = read_results()
    assert len(server.requests) == 9
    again = trace_of(replayed)
    assert [(s["action"], s["args"]) for s in again] == [(s["action"], s["args"]) for s in steps]
    assert replayed["score"] == record["score"]
    assert (replayed["tokens_in"], replayed["cost"]) == (record["tokens_in"], record["cost"])


def test_the_ci_gate_replays_a_saved_run_without_a_provider(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    server: LLMServer,
) -> None:
    """What .github/workflows/agent-gate.yml does: record and save once, then replay,
    compare and gate with no provider at all."""
    recorded("guess")
    trial = [
        answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                    "edit_instruction": "guess the mean of data.txt"}),
        say("```python\n" + GUESS_SOLUTION.read_text() + "```\n"),
        answer("Execute Script", {"script_name": "train.py"}),
        answer("Final Answer", {"final_answer": "guessed the training mean"}),
    ]
    # Five trials: with fewer, no fall could be significant and the gate could not trip.
    server.script.replies += trial * 5
    cache = ["--mlab-llm-cache-dir=llm-cache", "--mlab-trials=5"]
    pytester.runpytest("tasks", *llm_args(server), "--mlab-llm-cache=record", *cache,
                       "--mlab-save=main", *mlab_args).assert_outcomes(passed=5)
    asked = len(server.requests)
    gated = pytester.runpytest(
        "tasks", "--agent=react", "--llm=gpt-4", "--mlab-llm-cache=replay", *cache,
        "--mlab-compare=main", "--mlab-compare-fail=success:-10%",
        "--mlab-report-md=summary.md", *mlab_args,
    )
    gated.assert_outcomes(passed=5)
    assert gated.ret == pytest.ExitCode.OK
    assert len(server.requests) == asked == 20
    gated.stdout.fnmatch_lines(["gate passed: no significant fall beyond success:-10%*"])
    summary = (pytester.path / "summary.md").read_text()
    assert "| guess | react | gpt-4 | 5/5 |" in summary
    assert "gate passed: no significant fall" in summary


def test_react_with_native_tool_calls(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    recorded("guess")
    server.script.replies += [
        say("no tool call here"),
        Reply(content="run it", tool_calls=(("execute_script", {"script_name": "train.py"}),)),
        Reply(tool_calls=(("final_answer", {"final_answer": "ran the starter"}),)),
    ]
    pytester.runpytest("tasks", *llm_args(server), "--mlab-tool-calling",
                       *mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    assert [s["action"] for s in trace_of(record)] == ["Execute Script", "Final Answer"]
    assert "0.0% better than baseline" in record["message"]
    tools = {t["function"]["name"] for t in server.requests[0]["tools"]}
    assert {"execute_script", "edit_script_ai", "final_answer"} <= tools
    assert "write_file" not in tools  # hidden by default, as in the original


def test_react_in_retrieval_mode_logs_each_step_as_a_step(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    recorded("guess")
    server.script.replies += [
        answer("Execute Script", {"script_name": "train.py"}),
        say("[Reasoning]: measure\n[Action]: ran train.py\n[Observation]: it guessed 40"),
        answer("Final Answer", {"final_answer": "kept the starter"}),
    ]
    pytester.runpytest("tasks", *llm_args(server), "--mlab-retrieval",
                       *mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    steps = trace_of(record)
    assert [s["action"] for s in steps] == [
        "Execute Script", "Append Summary to Research Log", "Final Answer"]
    assert steps[1]["args"]["content"].startswith("Step 1:\n[Reasoning]: measure")
    assert record["steps"] == 3 and record["ended_by"] == "final answer"
    assert server.requests[1]["temperature"] == 0.01  # the fast model's, as the original


def test_a_provider_that_always_fails_is_one_line_error(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    recorded("guess")
    run = pytester.runpytest("tasks", *llm_args(server), "--mlab-llm-retries=2", *mlab_args)
    run.assert_outcomes(errors=1)
    (record,) = read_results()
    assert record["outcome"] == "error"
    assert record["error_class"] == "InternalServerError"
    assert "\n" not in record["message"] and "failed 3 times" in record["message"]
    assert len(server.requests) == 3
    # The provider's fault ends the trial, which is still scored and recorded as it stood.
    assert record["ended_by"] == "LLM error" and record["trace"]
    assert "invalid submission: submission.txt is missing" in record["message"]
    run.stdout.fnmatch_lines(["*TrialFault: guess: the LLM provider failed for good "
                              "(guess/react/gpt-4 trial 0 step 1: gpt-4 failed 3 times*"])


def test_a_missing_key_names_the_variable(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MLAB_LLM_API_BASE", raising=False)
    # In a process of its own, as a usage error mid-run leaves the next in-process run
    # without the plugin's options.
    run = pytester.runpytest_subprocess("tasks", "--agent=react", "--llm=gpt-4", *mlab_args)
    # Checked before any trial (tests/test_first_contact.py): no trial, no run.
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["ERROR: --llm gpt-4 needs OPENAI_API_KEY in the environment*"])
    assert not (pytester.path / "reports").exists()


def test_budgets_end_a_trial_and_the_session_cap_starts_no_new_one(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    recorded("guess")
    # The first call fits the budget and, as its usage says, spends all of it.
    spends_all = answer("List Files", {"dir_path": "."})
    server.script.replies += [Reply(spends_all.content, usage=(19_990, 10))]
    run = pytester.runpytest("tasks", *llm_args(server), "--mlab-trials=2",
                             "--mlab-max-tokens=20000", "--mlab-max-session-cost=0.000001",
                             *mlab_args)
    run.assert_outcomes(failed=1, skipped=1)
    first, second = read_results()
    assert first["ended_by"] == "LLM budget" and first["steps"] == 1
    assert "the LLM budget ended the trial" in first["message"]
    assert second["outcome"] == "skipped"
    assert "the session's LLM budget of $1e-06 is spent" in second["message"]
    assert len(server.requests) == 1


def test_the_command_agent_runs_an_external_cli_in_the_sandbox(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    cli = (
        "import os, pathlib, sys\n"
        "problem = pathlib.Path(sys.argv[1]).read_text()\n"
        "values = [float(v) for v in pathlib.Path('data.txt').read_text().split()]\n"
        "pathlib.Path('submission.txt').write_text(str(sum(values) / len(values)))\n"
        "print('problem:', problem.strip())\n"
        "print('key visible:', 'OPENAI_API_KEY' in os.environ)\n"
    )
    command = f"python3 -c {shlex.quote(cli)} {{problem}}"
    pytester.runpytest("tasks", "--agent=command", f"--mlab-agent-cmd={command}",
                       *mlab_args).assert_outcomes(passed=1)
    (record,) = read_results()
    run_step, final = trace_of(record)
    assert run_step["action"] == "Run Command" and run_step["exit_code"] == 0
    assert "problem: Predict the mean of the hidden test sample" in run_step["observation"]
    assert "key visible: False" in run_step["observation"]
    assert final["action"] == "Final Answer"
    assert record["message"].startswith("guess: error=")


def test_the_command_agent_needs_its_command(pytester: pytest.Pytester,
                                             task_tree: Callable[..., Path]) -> None:
    task_tree("guess")
    result = pytester.runpytest("tasks", "--agent=command", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agent=command runs an external agent*--mlab-agent-cmd*"])


@pytest.mark.slow
def test_react_improves_a_lite_task_through_the_loopback_server(
    pytester: pytest.Pytester,
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    """The acceptance run: a lite task, scripted to edit, execute and submit."""
    lite = Path(__file__).parent.parent / "tasks" / "lite" / "house-price"
    shutil.copytree(lite, pytester.path / "tasks" / "house-price",
                    ignore=shutil.ignore_patterns("__pycache__"))
    solution = (lite / "solution" / "train.py").read_text()
    server.script.replies += [
        answer("Execute Script", {"script_name": "train.py"}, "measure the baseline first"),
        answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                    "edit_instruction": "use gradient boosting"}),
        say(f"```python\n{solution}```"),
        say("The script now fits gradient-boosted trees to log prices."),  # the long diff
        answer("Execute Script", {"script_name": "train.py"}),
        answer("Final Answer", {"final_answer": "gradient boosting"}),
    ]
    run = pytester.runpytest("tasks", *llm_args(server), *mlab_args)
    (record,) = read_results()
    # Seen once in CI (the final workspace scored as the starter): what each step saw.
    steps = [(s["action"], str(s.get("observation", ""))[:300]) for s in trace_of(record)]
    assert run.parseoutcomes().get("passed") == 1, (record["message"], steps)
    run.assert_outcomes(passed=1)
    assert [s["action"] for s in trace_of(record)] == [
        "Execute Script", "Edit Script (AI)", "Execute Script", "Final Answer"]
    assert record["improvement"] > 0.1
    assert record["tokens_in"] > 0 and record["cost"] > 0
    summarised = json.dumps(server.requests[3]["messages"])
    assert "Summarise it" in summarised and "+from sklearn.ensemble import Hist" in summarised
