"""mini-swe-agent, its real ``mini`` command, in the sandbox against the loopback server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agent_venvs import installed
from llm_server import LLMServer, Reply

from pytest_mlab.llm.client import import_litellm

import_litellm()  # once per process: see tests/test_llm_agents.py

SOLUTION = (Path(__file__).parents[1] / "examples" / "guess" / "solution" / "train.py").read_text()


@pytest.fixture
def mini_venv() -> Path:
    return installed("mini-swe-agent")


def bash(command: str) -> Reply:
    return Reply(tool_calls=(("bash", {"command": command}),))


def mini_args(url: str, venv: Path, *more: str) -> list[str]:
    return ["--agent=mini-swe-agent", "--llm=openai/x", f"--mlab-llm-api-base={url}",
            f"--mlab-agent-venv={venv}", "--mlab-llm-backoff=0.01", "--mlab-llm-timeout=20",
            *more]


def test_mini_swe_agent_solves_a_task_through_the_gateway_then_replays(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, mini_venv: Path,
) -> None:
    recorded("guess")
    server.script.replies += [
        bash(f"cat > train.py <<'PYEOF'\n{SOLUTION}PYEOF\npython train.py"),
        bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ]
    cache = ["--mlab-llm-cache=record", "--mlab-llm-cache-dir=llm-cache"]
    pytester.runpytest("tasks", *mini_args(server.url, mini_venv), *cache,
                       *mlab_args).assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["ended_by"] == "final answer" and record["outcome"] == "passed"
    assert len(server.requests) == 2 and server.requests[0]["model"] == "x"
    assert server.requests[0]["tools"][0]["function"]["name"] == "bash"
    trace = Path(record["trace"])
    calls = [json.loads(line) for line in
             trace.with_name(trace.stem + ".llm-calls.jsonl").read_text().splitlines()]
    assert len(calls) == 2 and record["tokens_in"] == sum(c["tokens_in"] for c in calls) > 0

    server.script.replies.clear()
    replay = ["--mlab-llm-cache=replay", "--mlab-llm-cache-dir=llm-cache"]
    pytester.runpytest("tasks", *mini_args("http://127.0.0.1:9/v1", mini_venv), *replay,
                       *mlab_args).assert_outcomes(passed=1)
    (again,) = read_results()
    assert again["tokens_in"] == record["tokens_in"] and len(server.requests) == 2


def test_mini_swe_agent_is_stopped_when_the_budget_is_spent(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, mini_venv: Path,
) -> None:
    recorded("guess")
    server.script.respond = lambda request: bash("ls")  # it would go on for ever
    pytester.runpytest("tasks", *mini_args(server.url, mini_venv, "--mlab-max-tokens=3000"),
                       *mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["ended_by"] == "LLM budget"
    assert 0 < len(server.requests) < 20
    # Refused once a call no longer fits, never let past the budget.
    assert 0 < record["tokens_in"] + record["tokens_out"] <= 3000
