"""More of the research agent against MLAgentBench's code (docs/paper-parity.md names these
tests in its rows): how an answer is read, research-log failures, the edit and execute
actions, the Final Answer description, the limits checked before each answer, and how a
prompt too long for a model ends the turn."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply, say
from pytest_mlab.agents.react_format import FIELDS, Unreadable, fields_in_order, parse_response
from pytest_mlab.agents.react_summary import NO_LOG_ENTRY
from react_trial import answer, environment, react_turn, run_react

from pytest_mlab import AgentContext, AgentOptions
from pytest_mlab.env.actions import ai_edit
from pytest_mlab.env.agent import LongPrompt
from pytest_mlab.llm.client import import_litellm
from pytest_mlab.trial.act import let_agent_act

import_litellm()  # once per process, before any inline pytester run (test_llm_agents.py)

FINAL = answer("Final Answer", {"final_answer": "done"})
TOO_LONG = Reply(status=400, content="This model's maximum context length is 8192 tokens. "
                                     "However, your messages resulted in 9000 tokens.")
KNOWN = {"List Files", "Final Answer"}
INPUT = '{"dir_path": "."}'


def fields(*pairs: tuple[str, str]) -> str:
    return "\n".join(f"{name}: {value}" for name, value in pairs)


STANDARD = (("Reflection", "r"), ("Research Plan and Status", "p"), ("Fact Check", "f"),
            ("Thought", "t"), ("Action", "List Files"), ("Action Input", INPUT))


@pytest.mark.parametrize(("text", "action"), [
    (fields(*STANDARD), "List Files"),
    ("Sure, here it is.\n" + fields(*STANDARD), "List Files"),  # text before is ignored
    # A value runs to the last occurrence of the next name, as the original's greedy match.
    (fields(*STANDARD[:3], ("Thought", "take the Action: Final Answer later"), *STANDARD[4:]),
     "List Files"),
])
def test_the_paper_reading_takes_what_the_original_took(text: str, action: str) -> None:
    """agent.py parse_entries: one search for every name followed by a colon, in order,
    each value everything up to the next name; the Action, stripped, must be a tool."""
    decision = parse_response(text, KNOWN)
    assert (decision.action, json.loads(decision.raw_input)) == (action, {"dir_path": "."})


def test_the_paper_reading_finds_what_one_greedy_pattern_finds() -> None:
    """The original's parse_entries is one search of every name and a colon, in order,
    each value a greedy run of anything: checked against that pattern on random answers
    made of the names, near misses and text."""
    pattern = re.compile("".join(f"{re.escape(name)}:(.*)" for name in FIELDS), re.DOTALL)
    pieces = [f"{name}:" for name in FIELDS] + [" x", "\n", "Action", "thought:", " Input:"]
    rng = random.Random(33)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        match = pattern.search(text)
        expected = None if match is None else {
            name: value.strip() for name, value in zip(FIELDS, match.groups(), strict=True)}
        assert fields_in_order(text) == expected, text


def _answer_like(rng: random.Random) -> str:
    """An answer as models write them, right or nearly: each field on its own line or
    inline after the one before, in bold or another case, now and then left out or out
    of order, with values that mention other names, and an action known or not."""
    values = {"Action": rng.choice(["List Files", "Final Answer", "`List Files`",
                                    "List Files\n(to look)", "Look Around"]),
              "Action Input": rng.choice([INPUT, '{"final_answer": "done"}', "none"])}
    order = list(FIELDS)
    if rng.random() < 0.2:
        rng.shuffle(order)
    parts = []
    for name in order:
        if rng.random() < 0.05:
            continue
        head = rng.choice([f"{name}:"] * 4 + [f"**{name}:**", f"{name.lower()}:"])
        value = values.get(name) or rng.choice(["r", "next: the Action: run it", "x\ny"])
        parts.append(rng.choice(["\n", "\n", " "]) + f"{head} {value}")
    return rng.choice(["", "Sure.\n"]) + "".join(parts).lstrip()


def test_the_lenient_reading_takes_all_the_strict_one_takes_read_alike_and_more() -> None:
    """docs/paper-parity.md: --mlab-answer-parsing=lenient is the paper's reading and
    more. On the same generated answers, every decision the strict reading makes the
    lenient one makes too, the same; and it takes answers the strict one asks again."""
    rng = random.Random(41)
    both = lenient_only = 0
    for _ in range(4000):
        text = _answer_like(rng)
        try:
            strict = parse_response(text, KNOWN)
        except Unreadable:
            strict = None
        try:
            lenient = parse_response(text, KNOWN, lenient=True)
        except Unreadable:
            assert strict is None, text
            continue
        if strict is None:
            lenient_only += 1
        else:
            assert lenient == strict, text
            both += 1
    assert both > 100 and lenient_only > 100, (both, lenient_only)


def _reading_time(repeats: int) -> float:
    text = "Reflection: Research Plan and Status: Fact Check: Thought: Action: " * repeats
    best = float("inf")
    for _ in range(5):  # the fastest of five: a busy machine only ever adds time
        started = time.perf_counter()
        assert fields_in_order(text) is None
        best = min(best, time.perf_counter() - started)
    return best


def test_a_long_answer_full_of_names_is_read_in_linear_time() -> None:
    """The greedy pattern backtracks for hours on this; ours reads it in linear time: four
    times the text takes about four times as long (a quadratic reading, sixteen)."""
    assert _reading_time(16000) / _reading_time(4000) < 8


@pytest.mark.parametrize("text", [
    "**Reflection:** r\n**Research Plan and Status:** p\n**Fact Check:** f\n**Thought:** t\n"
    f"**Action:** List Files\n**Action Input:** {INPUT}",
    fields(*STANDARD[:4], ("action", "List Files"), ("Action Input", INPUT)),
    fields(STANDARD[3], *STANDARD[:3], *STANDARD[4:]),  # Thought first
    fields(*STANDARD[:4], ("Action", "`List Files`"), ("Action Input", INPUT)),
    fields(*STANDARD[:4], ("Action", "List Files\n(to look around)"), ("Action Input", INPUT)),
])
def test_what_the_original_asked_for_again_only_the_lenient_reading_takes(text: str) -> None:
    with pytest.raises(Unreadable):
        parse_response(text, KNOWN)
    assert parse_response(text, KNOWN, lenient=True).action == "List Files"


def test_an_answer_in_markdown_bold_is_asked_for_again_unless_lenient(
    tmp_path: Path, server: LLMServer
) -> None:
    bold = say(answer("List Files", {"dir_path": "."}).content.replace("Action:", "**Action:**"))
    paper = run_react(tmp_path / "paper", server, [bold, FINAL])
    assert paper.actions == ["Final Answer"] and len(server.requests) == 2
    lenient = run_react(tmp_path / "lenient", server, [bold, FINAL],
                        options=AgentOptions(answer_parsing="lenient"))
    assert lenient.actions == ["List Files", "Final Answer"]


def test_a_log_entry_too_long_for_the_fast_model_is_a_failed_attempt(
    tmp_path: Path, server: LLMServer
) -> None:
    """agent_research.py: every failure of the log summary is retried (max_retries), then a
    placeholder is logged and the run goes on."""
    replies = [answer("List Files", {"dir_path": "."}), *[TOO_LONG] * 5, FINAL]
    run = run_react(tmp_path, server, replies, options=AgentOptions(retrieval=True))
    assert run.env.research_log == [f"Step 1:\n{NO_LOG_ENTRY}"]
    assert run.actions == ["List Files", "Append Summary to Research Log", "Final Answer"]
    assert len(run.requests("fast-model")) == 5


def test_edit_script_sends_a_long_script_whole(
    tmp_path: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """high_level_actions.py edit_script: no size limit; a model that finds the script too
    long makes that the observation (test_a_prompt_too_long_for_a_tool_is_its_observation)."""
    long_script = "x = 1\n" * 25_000
    env = environment(tmp_path, server, files={"big.py": long_script})
    server.script.replies.append(say("```python\nprint('short now')\n```"))
    edit = {"script_name": "big.py", "edit_instruction": "shorten it", "save_name": "big.py"}
    assert "Saved the edited file as big.py" in env.execute("Edit Script (AI)", **edit)
    (request,) = server.requests
    assert long_script.rstrip("\n") in request["messages"][0]["content"]
    # Only a file no model's context could hold is refused, unread.
    monkeypatch.setattr(ai_edit, "MAX_SOURCE_BYTES", 1_000)
    (env.workspace.root / "big.py").write_text(long_script)
    assert "more than any model's context holds" in env.execute("Edit Script (AI)", **edit)
    assert len(server.requests) == 1


def test_execute_script_runs_any_file_that_exists_with_python(
    tmp_path: Path, server: LLMServer
) -> None:
    """low_level_actions.py execute_script: the file must exist; it is run by python,
    whatever its name ends in."""
    files = {"run.txt": "print('from a .txt')\n", "-i": "print('not an option')\n"}
    env = environment(tmp_path, server, files=files)
    assert "ran to completion. Output:\nfrom a .txt" in env.execute(
        "Execute Script", script_name="run.txt")
    assert "ran to completion. Output:\nnot an option" in env.execute(
        "Execute Script", script_name="-i")
    for missing in ("gone.py", "."):  # nothing there, or not a file
        assert "is not a file in the workspace" in env.execute("Execute Script",
                                                               script_name=missing)


def test_final_answer_is_described_as_the_original_describes_it(
    tmp_path: Path, server: LLMServer
) -> None:
    """low_level_actions.py: give the final answer; a detailed description; the observation
    is empty. Nothing is said about scoring."""
    prompt = run_react(tmp_path, server, [FINAL]).prompt(0)
    assert ("- Final Answer:\n  Give the final answer to the task.\n  Usage:\n  ```\n"
            "  Action: Final Answer\n  Action Input: {\n      \"final_answer\": [a detailed "
            "description of the final answer]\n  }\n  Observation: [nothing: the "
            "observation is empty]\n  ```") in prompt
    assert "scored" not in prompt


def test_the_agent_asks_no_model_once_the_time_is_up(tmp_path: Path, server: LLMServer) -> None:
    """agent_research.py checks env.is_final() (steps and time) before asking for each
    answer; the script running at the limit is stopped by its timeout."""
    slow = {"slow.py": "import time\ntime.sleep(30)\n"}
    ended, run = react_turn(tmp_path, server, [answer("Execute Script", {"script_name":
                                                                       "slow.py"}), FINAL],
                            files=slow, max_time=5.0)
    assert ended.ended_by == "time limit" and run.actions == ["Execute Script"]
    assert len(server.requests) == 1
    assert "was stopped after" in run.env.steps_taken[0].observation


def test_the_agent_asks_no_model_once_the_steps_are_spent(
    tmp_path: Path, server: LLMServer
) -> None:
    log = say("[Reasoning]: look\n[Action]: listed\n[Observation]: train.py")
    replies = [answer("List Files", {"dir_path": "."}), log] * 2 + [FINAL]
    ended, run = react_turn(tmp_path, server, replies, options=AgentOptions(retrieval=True),
                            max_steps=4)
    assert ended.ended_by == "step limit" and len(run.actions) == 4
    assert len(server.requests) == 4  # no answer asked for a fifth step


@pytest.mark.parametrize(("mode", "fails"), [("retry", False), ("stop", False), ("fail", True)])
def test_a_summary_too_long_for_the_fast_model_ends_the_turn(
    tmp_path: Path, server: LLMServer, mode: LongPrompt, fails: bool
) -> None:
    """agent_research.py summarize_observation is outside any try: the error ends the run,
    which then has no final snapshot; ours ends the turn and scores the workspace unless
    --mlab-long-prompt=fail."""
    loud = {"loud.py": "print('x' * 6000)\n"}
    ended, run = react_turn(tmp_path, server, [answer("Execute Script", {"script_name":
                                                                       "loud.py"}), TOO_LONG],
                            files=loud, options=AgentOptions(long_prompt=mode))
    assert ended.ended_by == "prompt too long" and run.actions == ["Execute Script"]
    assert (ended.agent_error is not None) == fails


def test_a_prompt_too_long_fails_the_run_as_the_original_only_when_asked(
    tmp_path: Path, server: LLMServer
) -> None:
    """agent_research.py calls complete_text outside the retry's try: TooLongPromptError
    escapes run(), runner.py never saves the final snapshot, eval.py scores nothing."""
    ended, run = react_turn(tmp_path, server, [answer("List Files", {"dir_path": "."}),
                                               TOO_LONG],
                            options=AgentOptions(long_prompt="fail"))
    assert ended.ended_by == "prompt too long" and run.actions == ["List Files"]
    assert ended.agent_error is not None and "--mlab-long-prompt=fail" in ended.agent_error


GUESS = (Path(__file__).parent / "examples" / "guess" / "solution" / "train.py").read_text()


@pytest.mark.parametrize(("mode", "passed"), [("retry", True), ("fail", False)])
def test_a_trial_ended_by_a_prompt_too_long_is_scored_unless_fail(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, mode: str,
    passed: bool,
) -> None:
    recorded("guess")
    edit = answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                       "edit_instruction": "guess the mean of data.txt"})
    run = answer("Execute Script", {"script_name": "train.py"})
    server.script.replies += [edit, say(f"```python\n{GUESS}```\n"), run, TOO_LONG, TOO_LONG]
    result = pytester.runpytest(
        "tasks", "--agent=react", "--llm=gpt-4", f"--mlab-llm-api-base={server.url}",
        "--mlab-llm-backoff=0.01", "--mlab-llm-timeout=20", f"--mlab-long-prompt={mode}",
        *mlab_args)
    result.assert_outcomes(passed=int(passed), failed=int(not passed))
    (record,) = read_results()
    assert record["ended_by"] == "prompt too long" and record["steps"] == 2
    assert (record["score"] is not None) == passed


@pytest.mark.parametrize(("mode", "fails"), [("retry", False), ("fail", True)])
def test_the_langchain_agent_ends_its_turn_on_a_prompt_too_long_likewise(
    tmp_path: Path, server: LLMServer, mode: LongPrompt, fails: bool
) -> None:
    pytest.importorskip("langchain_core")
    from pytest_mlab.agents.langchain_agent import LangChainAgent

    server.script.replies.append(TOO_LONG)
    env = environment(tmp_path, server)
    agent = LangChainAgent(AgentContext(task="parity", llm="gpt-4",
                                        options=AgentOptions(long_prompt=mode)))
    ended = let_agent_act(agent, env)
    assert ended.ended_by == "prompt too long" and (ended.agent_error is not None) == fails
