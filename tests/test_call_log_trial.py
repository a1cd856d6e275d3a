"""A whole research-agent trial leaves its call log beside its trace: one line per model
call, each with its step, role and tokens, agreeing with the trace's usage."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer
from test_llm_agents import llm_args, research_script, trace_of

from pytest_mlab.core.run_files import TrialFiles


def test_a_react_trial_logs_each_model_call_with_its_step_and_role(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer,
) -> None:
    recorded("guess")
    server.script.replies += research_script()
    run = pytester.runpytest("tasks", *llm_args(server), "--mlab-edit-llm=openai/edit-model",
                             *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    steps = trace_of(record)
    log = TrialFiles.of_trace(Path(record["trace"])).calls
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    # Three rate limits are retries within one call: 5 answers of the main model and the
    # edit model's one, in the order they were made.
    assert [(c["step"], c["role"], c["model"]) for c in calls] == [
        (1, "main", "gpt-4"), (1, "main", "gpt-4"), (2, "main", "gpt-4"),
        (2, "edit", "openai/edit-model"), (3, "main", "gpt-4"), (4, "main", "gpt-4")]
    for step in steps:
        mine = [c for c in calls if c["step"] == step["step"]]
        assert len(mine) == step["usage"]["llm_calls"]
        assert sum(c["tokens_in"] for c in mine) == step["usage"]["tokens_in"] > 0
        assert sum(c["tokens_out"] for c in mine) == step["usage"]["tokens_out"] > 0
        assert sum(c["cost"] for c in mine) == pytest.approx(step["usage"]["cost"])
    assert "guess the mean of data.txt" in calls[3]["messages"][-1]["content"]
    assert calls[0]["reply"]["text"] == "I would like to look at the files first."
    assert not any(c["cached"] or c["error"] for c in calls)
    assert len(server.requests) == 9
