"""The options that choose between MLAgentBench's behaviour and ours: parsing, ini twins,
the run header, and their way through a whole trial to the requests and observations."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, say

from pytest_mlab.llm.client import import_litellm

import_litellm()  # once per process, as in test_llm_agents.py


def test_the_header_shows_each_roles_sampling_and_the_agent_choices(
    pytester: pytest.Pytester, mlab_args: list[str]
) -> None:
    result = pytester.runpytest("--agent=react", "--llm=gpt-4",
                                "--mlab-fast-llm=anthropic/claude-3-haiku", *mlab_args)
    result.stdout.fnmatch_lines([
        "mlab: sampling gpt-4 main=gpt-4 temperature=0.2 max_output_tokens=500 "
        "stop='Observation:'",
        "mlab: sampling gpt-4 fast=anthropic/claude-3-haiku temperature=0.01 "
        "max_output_tokens=2000 stop='\\n\\nHuman:','Observation:'",
        "mlab: sampling gpt-4 edit=gpt-4 temperature=0.2 max_output_tokens=4000 "
        "stop='Observation:'",
        "mlab: agents history=paper system-prompt=off invalid-retries=4 retrieval=off "
        "tool-calling=off langchain-style=react long-prompt=retry answer-parsing=paper "
        "prompt=pytest-mlab's wording (differs from the paper's: --mlab-paper-prompt=CHECKOUT "
        "for its own) script-output=paper understand-limit=whole file",
    ])


def test_options_change_sampling_per_role_and_show_in_the_header(
    pytester: pytest.Pytester, mlab_args: list[str]
) -> None:
    result = pytester.runpytest(
        "--agent=react", "--llm=claude-3-opus", "--mlab-temperature=0",
        "--mlab-temperature=fast=none", "--mlab-max-output-tokens=main=1000,edit=8000",
        "--mlab-stop=END", "--mlab-stop=\\n\\nUser:", "--mlab-history=compact",
        "--mlab-system-prompt", "--mlab-langchain-style=tools", "--mlab-script-output=both",
        "--mlab-understand-limit=200000", "--mlab-long-prompt=fail",
        "--mlab-answer-parsing=lenient", *mlab_args,
    )
    result.stdout.fnmatch_lines([
        "mlab: sampling claude-3-opus main=* temperature=0 max_output_tokens=1000 "
        "stop='END','\\n\\nUser:'",
        "mlab: sampling claude-3-opus fast=* temperature=provider max_output_tokens=2000 *",
        "mlab: sampling claude-3-opus edit=* temperature=0 max_output_tokens=8000 *",
        "mlab: agents history=compact system-prompt=on * langchain-style=tools long-prompt=fail "
        "answer-parsing=lenient prompt=* script-output=both understand-limit=200000",
    ])


def test_the_ini_file_sets_them_too(pytester: pytest.Pytester, mlab_args: list[str]) -> None:
    pytester.makeini("[pytest]\nmlab_temperature = main=0.3\nmlab_stop =\n    none\n"
                     "mlab_history = compact\nmlab_script_output = both\n")
    result = pytester.runpytest("--agent=react", "--llm=gpt-4", *mlab_args)
    result.stdout.fnmatch_lines([
        "mlab: sampling gpt-4 main=gpt-4 temperature=0.3 max_output_tokens=500 stop=none",
        "mlab: agents history=compact * script-output=both *",
    ])


@pytest.mark.parametrize(("args", "message"), [
    (["--mlab-temperature=hot"], "*--mlab-temperature: expected a temperature from 0 to 2 "
                                 "or none, optionally as ROLE=VALUE (e.g. fast=0.01), got 'hot'"),
    (["--mlab-temperature=judge=0.1"], "*expected a role of main, fast, edit before '=', "
                                       "got 'judge'"),
    (["--mlab-max-output-tokens=edit=0"], "*--mlab-max-output-tokens: expected a number of "
                                          "tokens or none*got 'edit=0'"),
    (["--mlab-history=full"], "*--mlab-history: expected one of paper, compact, got 'full'"),
    (["--mlab-langchain-style=auto"], "*expected one of react, tools, got 'auto'"),
    (["--mlab-script-output=stderr"], "*expected one of paper, both, got 'stderr'"),
])
def test_a_bad_value_is_one_line(pytester: pytest.Pytester, args: list[str],
                                 message: str) -> None:
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_bad_ini_value_names_its_key(pytester: pytest.Pytester, mlab_args: list[str]) -> None:
    pytester.makeini("[pytest]\nmlab_temperature = 7\n")
    result = pytester.runpytest("--agent=react", "--llm=gpt-4", *mlab_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini key mlab_temperature: expected a temperature*got '7'"])


def test_the_choices_reach_the_requests_and_the_observations(
    pytester: pytest.Pytester,
    recorded: Callable[[str], Path],
    mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
    server: LLMServer,
) -> None:
    recorded("guess")
    train = pytester.path / "tasks" / "guess" / "env" / "train.py"
    train.write_text(train.read_text() + "import sys\nprint('a warning', file=sys.stderr)\n")

    def step(action: str, args: dict[str, str]) -> str:
        return (f"Reflection: -\nResearch Plan and Status: -\nFact Check: -\nThought: -\n"
                f"Action: {action}\nAction Input: {json.dumps(args)}")

    server.script.replies += [say(step("Execute Script", {"script_name": "train.py"})),
                              say(step("Final Answer", {"final_answer": "ran it"}))]
    pytester.runpytest(
        "tasks", "--agent=react", "--llm=gpt-4", f"--mlab-llm-api-base={server.url}",
        "--mlab-temperature=0", "--mlab-max-output-tokens=none", "--mlab-stop=END",
        "--mlab-system-prompt", "--mlab-script-output=both", *mlab_args,
    ).assert_outcomes(failed=1)
    first = server.requests[0]
    assert (first["temperature"], first.get("max_tokens"), first["stop"]) == (0, None, ["END"])
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    (record,) = read_results()
    trace = [json.loads(line) for line in Path(record["trace"]).read_text().splitlines()]
    assert trace[0]["observation"].endswith("Output:\nguessed 40\na warning")
