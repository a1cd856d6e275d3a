"""Whole trials of an external agent that reaches its model only through the gateway."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, say

from pytest_mlab.llm.client import import_litellm

import_litellm()  # once per process: see tests/test_llm_agents.py

HERE = Path(__file__).parent
SOLUTION = (HERE.parent / "examples" / "guess" / "solution" / "train.py").read_text()


def fake_venv(root: Path) -> Path:
    """An 'installation' for --mlab-agent-venv: a python and the scripted agent."""
    venv = root / "agent-venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "bin" / "scripted_agent.py").write_text((HERE / "scripted_agent.py").read_text())
    return venv


def gateway_args(server_url: str, venv: Path, *more: str, wire: str = "openai") -> list[str]:
    command = f"WIRE={wire} python {shlex.quote(str(venv / 'bin' / 'scripted_agent.py'))}"
    return ["--agent=command", "--llm=openai/x", f"--mlab-llm-api-base={server_url}",
            f"--mlab-agent-cmd={command}", f"--mlab-agent-venv={venv}",
            "--mlab-llm-backoff=0.01", "--mlab-llm-timeout=20", *more]


def calls_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    log = Path(record["trace"]).with_name(Path(record["trace"]).stem + ".llm-calls.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_a_command_agent_solves_a_task_through_the_gateway_then_replays(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
    sandbox_args: list[str],
) -> None:
    recorded("guess")
    mlab_args = [*mlab_args, *sandbox_args]
    venv = fake_venv(pytester.path)
    server.script.replies += [say(SOLUTION), say("DONE")]
    cache = ["--mlab-llm-cache=record", "--mlab-llm-cache-dir=llm-cache"]
    run = pytester.runpytest("tasks", *gateway_args(server.url, venv), *cache, *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["ended_by"] == "final answer" and record["outcome"] == "passed"
    assert record["isolation"] == ("docker" if sandbox_args else "bwrap")
    # The server saw the agent's own sampling and the model --llm names, not the agent's.
    assert len(server.requests) == 2
    assert server.requests[0]["model"] == "x" and server.requests[0]["temperature"] == 0
    assert "stop" not in server.requests[0]
    calls = calls_of(record)
    assert [c["asked_for"] for c in calls] == ["anything", "anything"]
    assert record["tokens_in"] == sum(c["tokens_in"] for c in calls) > 0
    assert record["tokens_out"] == sum(c["tokens_out"] for c in calls) > 0

    server.script.replies.clear()
    replay = ["--mlab-llm-cache=replay", "--mlab-llm-cache-dir=llm-cache"]
    gone = "http://127.0.0.1:9/v1"  # nothing listens: every call must come from the cache
    run = pytester.runpytest("tasks", *gateway_args(gone, venv), *replay, *mlab_args)
    run.assert_outcomes(passed=1)
    (again,) = read_results()
    assert again["tokens_in"] == record["tokens_in"] and len(server.requests) == 2


def test_a_spent_budget_refuses_the_agent_and_ends_the_trial(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    recorded("guess")
    venv = fake_venv(pytester.path)
    server.script.replies += [say("print('one')\n" * 50), say(SOLUTION), say("DONE")]
    run = pytester.runpytest("tasks", *gateway_args(server.url, venv, "--mlab-max-tokens=50"),
                             *mlab_args)
    run.assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["ended_by"] == "LLM budget"
    assert len(server.requests) == 1
    (step, *_) = json.loads("[" + ",".join(Path(record["trace"]).read_text().splitlines()) + "]")
    assert "the model refused: 429" in step["observation"]
    assert "LLM budget is spent" in step["observation"]


def test_code_in_the_sandbox_cannot_turn_the_gateway_to_other_uses(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
    monkeypatch: pytest.MonkeyPatch, sandbox_args: list[str],
) -> None:
    recorded("guess")
    mlab_args = [*mlab_args, *sandbox_args]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-harness-secret")
    venv = fake_venv(pytester.path)
    (venv / "bin" / "hostile_probe.py").write_text((HERE / "hostile_probe.py").read_text())
    probe = f"--mlab-agent-cmd=python {shlex.quote(str(venv / 'bin' / 'hostile_probe.py'))}"
    pytester.runpytest("tasks", *gateway_args(server.url, venv), probe, *mlab_args)
    (record,) = read_results()
    (step, _final) = [json.loads(line) for line in Path(record["trace"]).read_text().splitlines()]
    assert "PROBE " in step["observation"], step["observation"]
    seen = json.loads(step["observation"].split("PROBE ", 1)[1].splitlines()[0])
    assert seen["other_token"].endswith("401 Unauthorized")
    assert seen["no_token"].endswith("401 Unauthorized")
    assert seen["proxy_url"].endswith("403 Forbidden")
    assert seen["connect"].endswith("405 Method Not Allowed")
    assert seen["other_path"].endswith("404 Not Found")
    assert seen["harness_key_visible"] is False and seen["token_prefix"] == "mlab-"
    assert seen["network"].startswith("refused")
    assert server.requests == []  # none of it reached the provider
    # The provider gets the harness's key, added on the harness side.


@pytest.mark.parametrize("wire", ["openai-stream", "anthropic", "anthropic-stream"])
def test_the_other_wire_formats_reach_the_model_and_are_metered(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, wire: str,
) -> None:
    recorded("guess")
    venv = fake_venv(pytester.path)
    server.script.replies += [say(SOLUTION), say("DONE")]
    run = pytester.runpytest("tasks", *gateway_args(server.url, venv, wire=wire), *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["ended_by"] == "final answer" and len(server.requests) == 2
    # Translated to the chat form, with the agent's own sampling.
    assert server.requests[0]["model"] == "x" and server.requests[0]["temperature"] == 0
    assert server.requests[0]["messages"][-1]["role"] == "user"
    calls = calls_of(record)
    assert record["tokens_in"] == sum(c["tokens_in"] for c in calls) > 0
