"""The langchain agent: whole trials against the loopback server in both styles (text
ReAct, as MLAgentBench's, and native tool calls), and the missing extra."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply, say

from pytest_mlab.llm.client import import_litellm

# Imported once for the whole test process, as in test_llm_agents.py: an inline pytester
# run that imports these first has them removed again, with importlib.metadata's view.
import_litellm()
with contextlib.suppress(ImportError):
    import pytest_mlab.agents.langchain_model  # noqa: F401

GUESS_SOLUTION = Path(__file__).parent / "examples" / "guess" / "solution" / "train.py"


def llm_args(server: LLMServer, style: str = "tools") -> list[str]:
    return ["--agent=langchain", f"--mlab-langchain-style={style}", "--llm=gpt-4",
            f"--mlab-llm-api-base={server.url}", "--mlab-llm-backoff=0.01",
            "--mlab-llm-timeout=20"]


def call(name: str, args: dict[str, Any], text: str | None = None) -> Reply:
    return Reply(content=text, tool_calls=((name, args),))


def trace_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(record["trace"]).read_text().splitlines()]


def test_langchain_edits_runs_and_submits_then_replays(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    pytest.importorskip("langchain_core")
    recorded("guess")
    server.script.replies += [
        say("Let me think first."),
        call("list_files", {"dir_path": "."}, "look around"),
        call("edit_script_ai", {"script_name": "train.py", "save_name": "train.py",
                                "edit_instruction": "guess the mean of data.txt"}),
        say("```python\n" + GUESS_SOLUTION.read_text() + "```\n"),  # the edit model
        call("execute_script", {"script_name": 1}),
        call("execute_script", {"script_name": "train.py"}),
        call("final_answer", {"final_answer": "guessed the training mean"}),
    ]
    cache = ["--mlab-llm-cache-dir=llm-cache"]
    run = pytester.runpytest("tasks", *llm_args(server), "--mlab-llm-cache=record", *cache,
                             *mlab_args)
    run.assert_outcomes(passed=1)
    (record,) = read_results()
    steps = trace_of(record)
    assert [s["action"] for s in steps] == [
        "List Files", "Edit Script (AI)", "Execute Script", "Execute Script", "Final Answer"]
    assert "must be a string" in steps[2]["observation"]  # validated by the action
    assert record["ended_by"] == "final answer" and record["tokens_in"] > 0
    assert record["tokens_in"] == sum(s["usage"]["tokens_in"] for s in steps)
    assert record["cost"] == pytest.approx(record["tokens_in"] * 30e-6
                                           + record["tokens_out"] * 60e-6)
    first, *_, last = server.requests
    tools = {t["function"]["name"] for t in first["tools"]}
    assert {"list_files", "edit_script_ai", "execute_script", "final_answer"} <= tools
    assert "write_file" not in tools  # the same visible set as react
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["messages"][1]["content"].startswith("Predict the mean")
    assert [m["role"] for m in server.requests[1]["messages"]][2:] == ["assistant", "user"]
    roles = [m["role"] for m in last["messages"]]
    assert roles == ["system", "user", "assistant", "user",
                     *["assistant", "tool"] * 4]
    tool_message = last["messages"][-1]
    assert tool_message["tool_call_id"] == last["messages"][-2]["tool_calls"][0]["id"]
    assert tool_message["content"] == steps[3]["observation"]

    requests = len(server.requests)
    run = pytester.runpytest("tasks", *llm_args(server), "--mlab-llm-cache=replay", *cache,
                             *mlab_args)
    run.assert_outcomes(passed=1)
    (replayed,) = read_results()
    assert len(server.requests) == requests
    assert [s["args"] for s in trace_of(replayed)] == [s["args"] for s in steps]
    assert replayed["tokens_in"] == record["tokens_in"]


def test_the_prompt_keeps_the_task_and_the_last_exchanges(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    pytest.importorskip("langchain_core")
    from pytest_mlab.agents.langchain_agent import KEPT_EXCHANGES

    recorded("guess")
    server.script.replies += [call("list_files", {"dir_path": "."})] * (KEPT_EXCHANGES + 3)
    server.script.replies += [call("final_answer", {"final_answer": "looked only"})]
    pytester.runpytest("tasks", *llm_args(server), *mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    assert record["steps"] == KEPT_EXCHANGES + 4 and record["outcome"] == "failed"
    assert len(server.requests[-1]["messages"]) == 2 + 2 * KEPT_EXCHANGES


def test_the_react_style_is_the_default_and_runs_a_text_react_loop(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    pytest.importorskip("langchain_core")
    recorded("guess")
    server.script.replies += [
        say('Thought: look around\nAction: List Files\nAction Input: {"dir_path": "."}'),
        say("I am not sure what to do."),
        say('Thought: run it\nAction: Execute Script\nAction Input: {"script_name": '
              '"train.py"}\nObservation: imagined 0.99'),
        say("Thought: I now know the final answer\nFinal Answer: the starter guesses 40"),
    ]
    args = [a for a in llm_args(server) if not a.startswith("--mlab-langchain-style")]
    pytester.runpytest("tasks", *args, *mlab_args).assert_outcomes(failed=1)
    (record,) = read_results()
    steps = trace_of(record)
    assert [s["action"] for s in steps] == ["List Files", "Execute Script", "Final Answer"]
    assert steps[-1]["args"] == {"final_answer": "the starter guesses 40"}
    first, *_, last = server.requests
    assert [m["role"] for m in last["messages"]] == ["user"] and "tools" not in first
    assert last["stop"] == ["Observation:", "\nObservation:", "\n\tObservation:"]
    assert (last["temperature"], last["max_tokens"]) == (0.2, 500)
    prompt = last["messages"][0]["content"]
    assert prompt.startswith("Carry out the task below as well as you can.")
    assert "Question: Predict the mean of the hidden test sample" in prompt
    assert ("Thought: look around\nAction: List Files\nAction Input: {\"dir_path\": \".\"}\n"
            "Observation: data.txt\ntrain.py\nThought: ") in prompt
    assert "I am not sure what to do.\nObservation: Invalid or incomplete answer" in prompt
    assert "imagined" not in prompt and steps[1]["observation"] in prompt


def test_react_style_observations_for_bad_steps_take_no_step(
    tmp_path: Path, server: LLMServer
) -> None:
    pytest.importorskip("langchain_core")
    from pytest_mlab.agents.langchain_agent import LangChainAgent
    from react_trial import environment

    from pytest_mlab import AgentContext, AgentOptions

    server.script.replies += [
        say("Thought: fly\nAction: Fly\nAction Input: {}"),
        say('Thought: run\nAction: Execute Script\nAction Input: {"script": "train.py"}'),
        say("Thought: done\nAction: List Files\nAction Input: {}\nFinal Answer: both"),
    ]
    env = environment(tmp_path, server, max_steps=3)
    agent = LangChainAgent(AgentContext(task="t", llm="gpt-4", options=AgentOptions()))
    assert agent.run(env) == "The agent stopped after 3 iterations."
    assert env.steps == 0 and len(server.requests) == 3
    prompt = server.requests[-1]["messages"][0]["content"]
    assert "Observation: Fly is not a tool; use one of [List Files, Copy File," in prompt
    assert "Observation: Action Input error: the Action Input for Execute Script" in prompt
    described = prompt.split("Use this format:")[0]
    assert "Edit Script (AI): Have another AI" in described and "Returns: " in described
    assert "Reflection:" not in described and "Read File:" not in described


def test_messages_convert_both_ways_and_bad_arguments_become_invalid_calls() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import ToolMessage
    from pytest_mlab.agents.langchain_model import from_completion, to_openai

    from pytest_mlab.llm import Completion, ToolCall, Usage

    completion = Completion("thinking", (ToolCall("list_files", '{"dir_path": "."}', "a"),
                                         ToolCall("execute_script", "{oops", "b")),
                            Usage(7, 3, 0.0, 1))
    message = from_completion(completion)
    assert [c["args"] for c in message.tool_calls] == [{"dir_path": "."}]
    assert [c["id"] for c in message.invalid_tool_calls] == ["b"]
    assert message.usage_metadata is not None and message.usage_metadata["total_tokens"] == 10
    assert to_openai(message) == {"role": "assistant", "content": "thinking", "tool_calls": [
        {"id": "a", "type": "function",
         "function": {"name": "list_files", "arguments": '{"dir_path": "."}'}},
        {"id": "b", "type": "function",
         "function": {"name": "execute_script", "arguments": "{oops"}},
    ]}
    assert to_openai(ToolMessage("ok", tool_call_id="a")) == {
        "role": "tool", "tool_call_id": "a", "content": "ok"}


def test_without_the_extra_the_trial_is_skipped_with_the_fix(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded("guess")
    monkeypatch.setitem(sys.modules, "langchain_core", None)  # import fails, find_spec: None
    # A loopback server that is never reached: no key is needed, so the missing extra is
    # what stops the trial.
    pytester.runpytest("tasks", "--agent=langchain", "--llm=gpt-4",
                       "--mlab-llm-api-base=http://127.0.0.1:9/v1",
                       *mlab_args).assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["outcome"] == "skipped"
    assert record["message"] == (
        "the langchain agent needs langchain_core: pip install 'pytest-mlab[langchain]'")


def test_the_agent_module_imports_without_langchain() -> None:
    code = ("import sys; sys.modules['langchain_core'] = None; "
            "from pytest_mlab.agents.langchain_agent import LangChainAgent; "
            "print(LangChainAgent.requires)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "langchain_core" in done.stdout
