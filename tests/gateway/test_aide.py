"""AIDE, aideml's real ``aide`` command, in the sandbox against the loopback server: a
scripted draft (plan and code), a scripted review (its submit_review function call)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agent_venvs import installed
from llm_server import LLMServer, Reply, say
from pytest_mlab.agents.aide import workspace_paths

from pytest_mlab.llm.client import import_litellm

import_litellm()  # once per process: see tests/test_llm_agents.py

# What AIDE's prompt asks for: its data in ./input, its outputs in ./working.
DRAFT = """Take the mean of the training values as the guess.

```python
from pathlib import Path

values = [float(line) for line in Path("./input/data.txt").read_text().split()]
Path("./working/submission.txt").write_text(f"{sum(values) / len(values)}\\n")
print("validation error: 0.5")
```
"""
REVIEW = Reply(tool_calls=(("submit_review", {
    "is_bug": False, "summary": "The mean of the training values.", "metric": 0.5,
    "lower_is_better": True}),))


@pytest.fixture
def aide_venv() -> Path:
    return installed("aide")


def aide_args(url: str, venv: Path, *more: str) -> list[str]:
    # Three steps: one AIDE node, running its best solution, the final answer.
    return ["--agent=aide", "--llm=openai/x", f"--mlab-llm-api-base={url}",
            f"--mlab-agent-venv={venv}", "--mlab-llm-backoff=0.01", "--mlab-llm-timeout=20",
            "--max-steps=3", *more]


def test_aide_paths_become_the_workspace() -> None:
    code = ('open("./input/train.csv"); Path("working") / "s.csv"; '
            "os.path.join('input', 'a'); \"./working/submission.csv\"; input('x')")
    assert workspace_paths(code) == (
        'open("./train.csv"); Path(".") / "s.csv"; '
        "os.path.join('.', 'a'); \"./submission.csv\"; input('x')")


@pytest.mark.slow
def test_aide_solves_a_task_through_the_gateway_then_replays(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, aide_venv: Path,
) -> None:
    recorded("guess")
    server.script.replies += [say(DRAFT), REVIEW]
    cache = ["--mlab-llm-cache=record", "--mlab-llm-cache-dir=llm-cache"]
    run = pytester.runpytest("tasks", *aide_args(server.url, aide_venv), *cache, *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    assert record["ended_by"] == "final answer" and record["outcome"] == "passed"
    draft, review = server.requests
    assert draft["model"] == "x" and "tools" not in draft
    assert review["tools"][0]["function"]["name"] == "submit_review"
    trace = Path(record["trace"])
    calls = [json.loads(line) for line in
             trace.with_name(trace.stem + ".llm-calls.jsonl").read_text().splitlines()]
    assert len(calls) == 2 and record["tokens_in"] == sum(c["tokens_in"] for c in calls) > 0
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    assert steps[1]["action"] == "Execute Script"
    assert "validation error: 0.5" in steps[1]["observation"]

    server.script.replies.clear()
    replay = ["--mlab-llm-cache=replay", "--mlab-llm-cache-dir=llm-cache"]
    pytester.runpytest("tasks", *aide_args("http://127.0.0.1:9/v1", aide_venv), *replay,
                       *mlab_args).assert_outcomes(passed=1)
    (again,) = read_results()
    assert again["tokens_in"] == record["tokens_in"] and len(server.requests) == 2


@pytest.mark.slow
def test_aide_is_stopped_when_the_budget_is_spent(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, aide_venv: Path,
) -> None:
    recorded("guess")
    server.script.respond = lambda request: REVIEW if "tools" in request else say(DRAFT)
    args = aide_args(server.url, aide_venv, "--mlab-max-tokens=3000", "--max-steps=30")
    pytester.runpytest("tasks", *args, *mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["ended_by"] == "LLM budget"
    assert 0 < len(server.requests) < 40
    # Refused once a call no longer fits, never let past the budget.
    assert 0 < record["tokens_in"] + record["tokens_out"] <= 3000
