"""An external agent's calls through the gateway are logged whole, as the research agents'
are, and neither the harness's key nor the gateway's token is ever written."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, say
from test_gateway_trials import SOLUTION, fake_venv, gateway_args

from pytest_mlab.core.run_files import TrialFiles

KEY = "sk-harness-key-never-logged-0123456789"


def test_an_external_agents_calls_are_logged_without_keys_or_tokens(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    venv = fake_venv(pytester.path)
    server.script.replies += [say(SOLUTION), say("DONE")]
    run = pytester.runpytest("tasks", *gateway_args(server.url, venv, wire="anthropic"),
                             *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    log = TrialFiles.of_trace(Path(record["trace"])).calls
    text = log.read_text()
    calls = [json.loads(line) for line in text.splitlines()]
    assert [(c["role"], c["model"], c["via"]) for c in calls] == [
        ("main", "openai/x", "gateway messages, asked for anything")] * 2
    assert [c["reply"]["text"] for c in calls] == [SOLUTION, "DONE"]
    assert "write it to submission.txt" in calls[0]["messages"][0]["content"]  # the problem
    assert calls[1]["messages"][-2]["content"] == SOLUTION
    assert record["tokens_in"] == sum(c["tokens_in"] for c in calls) > 0
    assert record["tokens_out"] == sum(c["tokens_out"] for c in calls) > 0
    assert KEY not in text and "Bearer" not in text and "x-api-key" not in text
    assert not re.search(r"mlab-[A-Za-z0-9_-]{40}", text)  # the gateway's token
