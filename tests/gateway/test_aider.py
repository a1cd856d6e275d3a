"""aider, aider-chat's real ``aider`` command, run once in the sandbox against the
loopback server: its scripted model answers with the whole entry script."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agent_venvs import installed
from llm_server import LLMServer, Reply, say

from pytest_mlab.llm.client import import_litellm

import_litellm()  # once per process: see tests/test_llm_agents.py

SOLUTION = (Path(__file__).parents[1] / "examples" / "guess" / "solution" / "train.py").read_text()
# aider's "whole" edit format: the file's name, then all of it in a fence.
WHOLE = f"Use the mean of the training values.\n\ntrain.py\n```python\n{SOLUTION}```\n"


@pytest.fixture
def aider_venv() -> Path:
    return installed("aider")


def aider_args(url: str, venv: Path, *more: str) -> list[str]:
    return ["--agent=aider", "--llm=openai/x", f"--mlab-llm-api-base={url}",
            f"--mlab-agent-venv={venv}", "--mlab-llm-backoff=0.01", "--mlab-llm-timeout=20",
            *more]


@pytest.mark.slow
def test_aider_solves_a_task_through_the_gateway_then_replays(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, aider_venv: Path,
) -> None:
    recorded("guess")
    server.script.replies += [say(WHOLE)]
    cache = ["--mlab-llm-cache=record", "--mlab-llm-cache-dir=llm-cache"]
    run = pytester.runpytest("tasks", *aider_args(server.url, aider_venv), *cache, *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["ended_by"] == "final answer" and record["outcome"] == "passed"
    assert len(server.requests) == 1 and server.requests[0]["model"] == "x"
    trace = Path(record["trace"])
    calls = [json.loads(line) for line in
             trace.with_name(trace.stem + ".llm-calls.jsonl").read_text().splitlines()]
    assert len(calls) == 1 and record["tokens_in"] == calls[0]["tokens_in"] > 0

    server.script.replies.clear()
    replay = ["--mlab-llm-cache=replay", "--mlab-llm-cache-dir=llm-cache"]
    pytester.runpytest("tasks", *aider_args("http://127.0.0.1:9/v1", aider_venv), *replay,
                       *mlab_args).assert_outcomes(passed=1)
    (again,) = read_results()
    assert again["tokens_in"] == record["tokens_in"] and len(server.requests) == 1


@pytest.mark.slow
def test_aider_is_stopped_when_the_budget_is_spent(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, aider_venv: Path,
) -> None:
    recorded("guess")
    # A script that does not parse: aider's lint asks the model to fix it, a second call.
    broken = "train.py\n```python\nprint('half a line'\n```\n"
    # Its first call fits the budget and, as its usage says, spends all of it.
    server.script.respond = lambda request: Reply(broken, usage=(19_990, 10))
    args = aider_args(server.url, aider_venv, "--mlab-max-tokens=20000")
    pytester.runpytest("tasks", *args, *mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["ended_by"] == "LLM budget"
    assert len(server.requests) == 1
    assert record["tokens_in"] + record["tokens_out"] == 20000
