"""``--mlab-retry-errors=N`` (issue 42): a trial that ended in a harness error runs again,
and its record keeps each earlier attempt; one the agent failed is never run again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply, say
from test_final_answer import AGENTS
from test_llm_agents import GUESS_SOLUTION

from pytest_mlab.llm.client import import_litellm

import_litellm()  # once per test process, as test_llm_agents explains



def _run(pytester: pytest.Pytester, server: LLMServer, mlab_args: list[str], agent: str,
         *more: str) -> pytest.RunResult:
    # test_final_answer's agents: ProviderFails improves the task, then asks the model once.
    pytester.makepyfile(ending_agents=AGENTS.format(solution=GUESS_SOLUTION.read_text()))
    return pytester.runpytest("tasks", f"--agent=ending_agents:{agent}", "--llm=gpt-4",
                              f"--mlab-llm-api-base={server.url}", "--mlab-llm-retries=0",
                              *more, *mlab_args)


def _fail_first(server: LLMServer, failures: int) -> list[int]:
    """The provider fails the first ``failures`` calls for good, then answers."""
    calls: list[int] = []

    def respond(request: dict[str, Any]) -> Reply:
        calls.append(1)
        return Reply(status=500) if len(calls) <= failures else say("yes")

    server.script.respond = respond
    return calls


def test_an_errored_trial_runs_again_and_its_record_keeps_the_attempt(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    _fail_first(server, 1)
    monkeypatch.setenv("COLUMNS", "200")  # both success columns on one line
    without = _run(pytester, server, mlab_args, "ProviderFails")
    without.assert_outcomes(errors=1)
    (record,) = read_results()
    assert record["outcome"] == "error" and record["earlier_attempts"] == []
    # Both success rates, and the run marked, where the error is left as it is.
    without.stdout.fnmatch_lines(["*success w/ errors*", "guess*0/0*0/1*",
                                  "run not clean: 1 trial ended in a harness error*"])
    _fail_first(server, 1)
    again = _run(pytester, server, mlab_args, "ProviderFails", "--mlab-retry-errors=1")
    again.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["outcome"] == "passed" and record["ended_by"] == "agent returned"
    (attempt,) = record["earlier_attempts"]
    assert attempt["error_class"] == "InternalServerError"
    assert attempt["message"].startswith("guess: ")
    assert "not clean" not in again.stdout.str() and "w/ errors" not in again.stdout.str()


def test_retries_stop_at_n_and_a_failed_trial_is_never_run_again(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    recorded("guess")
    calls = _fail_first(server, 10)
    _run(pytester, server, mlab_args, "ProviderFails", "--mlab-retry-errors=2"
         ).assert_outcomes(errors=1)
    (record,) = read_results()
    assert len(record["earlier_attempts"]) == 2 and len(calls) == 3
    crashed = _run(pytester, server, mlab_args, "Crashes", "--mlab-retry-errors=2")
    crashed.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["earlier_attempts"] == [] and "KeyError" in record["message"]
