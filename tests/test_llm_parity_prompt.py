"""The research agent's prompt, history and answer checking, against MLAgentBench's
(docs/paper-parity.md names these tests in its rows). Every trial runs in a real
environment; its LLM calls go to the loopback server."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_server import LLMServer, Reply, say
from react_trial import PROBLEM, answer, run_react

from pytest_mlab import AgentOptions
from pytest_mlab.llm import SamplingChoice

SHOWN = ["List Files", "Copy File", "Undo Edit Script", "Execute Script", "Final Answer",
         "Understand File", "Inspect Script Lines", "Edit Script (AI)"]
HIDDEN = ["Read File", "Write File", "Append File", "Python REPL", "Edit Script Segment (AI)",
          "Retrieval from Research Log", "Append Summary to Research Log", "Reflection"]
FINAL = answer("Final Answer", {"final_answer": "done"})


def listing(thought: str) -> Reply:
    return answer("List Files", {"dir_path": "."}, thought)


def test_the_prompt_is_one_user_message_with_the_originals_content(
    tmp_path: Path, server: LLMServer
) -> None:
    run = run_react(tmp_path, server, [FINAL])
    (request,) = server.requests
    assert [m["role"] for m in request["messages"]] == ["user"]
    prompt = run.prompt(0)
    assert f"Research problem: {PROBLEM}" in prompt
    assert "You start knowing nothing about this problem." in prompt
    for rule in ("high-level plan", "only progress made in earlier steps",
                 "only after you have run the code", "baseline performance",
                 "most direct route", "reasoning that support it",
                 "Do not install any new packages", "submit only once"):
        assert rule in prompt, rule
    for field in ("Reflection:", "Research Plan and Status:", "Fact Check:", "Thought:",
                  "Action:", "Action Input:"):
        assert f"\n{field} " in prompt, field
    assert "double asterisks **like this**" in prompt and "copy the previous" in prompt
    assert "guess or was directly confirmed" in prompt
    shown = [line[2:].split(":")[0] for line in prompt.splitlines() if line.startswith("- ")]
    assert [name for name in shown if name in SHOWN + HIDDEN] == SHOWN
    # Each action's usage block, as the original's: an answer's Action and Action Input
    # lines, then what its Observation holds.
    assert prompt.count("\n  Usage:\n  ```\n  Action: ") == len(SHOWN)
    assert ('- Execute Script:\n  Run a Python script of the workspace and return its '
            'output') in prompt
    assert ('  Action: Execute Script\n  Action Input: {\n      "script_name": [a Python '
            'script, relative to the workspace]\n  }\n  Observation: [what the script '
            'printed, or its error messages if it failed]\n  ```') in prompt
    assert prompt.rstrip().endswith("Now begin.")


def test_the_instructions_can_be_a_system_message(tmp_path: Path, server: LLMServer) -> None:
    run_react(tmp_path, server, [FINAL], options=AgentOptions(system_prompt=True))
    system, user = server.requests[0]["messages"]
    assert (system["role"], user["role"]) == ("system", "user")
    assert "You start knowing nothing" in system["content"]
    assert user["content"].strip() == "Now begin."


def test_paper_history_holds_the_last_three_steps_and_nothing_older(
    tmp_path: Path, server: LLMServer
) -> None:
    replies = [listing(f"thought number {n}") for n in range(1, 6)]
    run = run_react(tmp_path, server, [*replies, FINAL])
    sixth = run.prompt(5)
    assert [n for n in range(1, 6) if f"thought number {n}" in sixth] == [3, 4, 5]
    assert "Step 1" not in sixth and "Earlier steps" not in sixth
    assert "Now begin." in run.prompt(3) and "Now begin." not in run.prompt(4)
    assert sixth.count("Observation:\n```\ntrain.py\n```") == 3
    # Each step is an earlier assistant turn, marked as the original marked it: no number.
    assert sixth.count("\n\nAssistant:\nReflection: so far so good\nResearch Plan and "
                       "Status: 1. measure the baseline\nFact Check:") == 3
    assert "[Your step" not in sixth and "Step 5" not in sixth


def test_compact_history_adds_a_line_for_each_older_step(
    tmp_path: Path, server: LLMServer
) -> None:
    replies = [listing(f"thought number {n}") for n in range(1, 6)]
    run = run_react(tmp_path, server, [*replies, FINAL],
                    options=AgentOptions(history="compact"))
    sixth = run.prompt(5)
    assert 'Step 1: List Files {"dir_path": "."}\nStep 2: List Files' in sixth
    assert [n for n in range(1, 6) if f"thought number {n}" in sixth] == [3, 4, 5]


def test_the_plan_is_carried_over_without_its_update_marks(
    tmp_path: Path, server: LLMServer
) -> None:
    plan = "1. measure the baseline **done: 0.5**\n2. improve it"
    run = run_react(tmp_path, server, [answer("List Files", {"dir_path": "."}, plan=plan),
                                       FINAL])
    assert "1. measure the baseline done: 0.5\n2. improve it" in run.prompt(1)
    assert "**done" not in run.prompt(1)


@pytest.mark.parametrize("bad", [
    say("Thought: look\nAction: List Files\nAction Input: {\"dir_path\": \".\"}"),
    answer("Fly", {"dir_path": "."}),
    say("I would like to look at the files first."),
])
def test_an_unusable_answer_is_asked_for_again_at_no_steps_cost(
    tmp_path: Path, server: LLMServer, bad: Reply
) -> None:
    """All six fields and a known action are required, as in the original; the reminder
    is added to the prompt and the rejected answer is not shown."""
    run = run_react(tmp_path, server, [bad, FINAL])
    first, again = (run.prompt(n) for n in (0, 1))
    assert again.startswith(first)
    assert again.endswith("Your last answer could not be used. Answer again in the format, "
                          "with every entry: Reflection, Research Plan and Status, Fact Check,"
                          " Thought, Action, Action Input.\n")
    assert run.actions == ["Final Answer"]


def test_five_unusable_answers_end_the_agents_turn(tmp_path: Path, server: LLMServer) -> None:
    run = run_react(tmp_path, server, [say("no idea")] * 5 + [FINAL])
    assert run.result == "No usable answer in 5 attempts; the agent stopped."
    assert len(server.requests) == 5 and run.actions == []
    assert run.prompt(4).count("Your last answer could not be used.") == 4


def test_a_hidden_action_is_still_valid(tmp_path: Path, server: LLMServer) -> None:
    run = run_react(tmp_path, server, [answer("Read File", {"file_name": "train.py"}), FINAL])
    assert run.actions == ["Read File", "Final Answer"]


def test_an_unreadable_action_input_is_shown_back_without_a_step(
    tmp_path: Path, server: LLMServer
) -> None:
    wrong = answer("List Files", {"directory": "."}, "wrong argument name")
    broken = answer("Execute Script", "{script_name: train.py", "broken json")
    replies = [wrong, broken, listing("good step"), FINAL]
    run = run_react(tmp_path, server, replies)
    assert run.actions == ["List Files", "Final Answer"]
    second, third, fourth = (run.prompt(n) for n in (1, 2, 3))
    assert "could not be used: its entries are directory." in second
    assert '"dir_path": [a directory relative to the workspace' in second
    assert "wrong argument name" in third and "could not be used: it is not valid JSON" in third
    # Once a step is taken, the unreadable ones are forgotten, as in the original.
    assert "wrong argument name" not in fourth and "broken json" not in fourth
    assert "good step" in fourth


def test_action_input_with_raw_newlines_and_quotes_is_read(
    tmp_path: Path, server: LLMServer
) -> None:
    raw = '{"dir_path": "."\n}'
    loose = '{\n    "file_name": "train.py",\n    "things_to_look_for": "the "accuracy"\nline"\n}'
    replies = [answer("List Files", raw), answer("Understand File", loose),
               say("It prints accuracy 0.5 (line 1)."), FINAL]
    run = run_react(tmp_path, server, replies)
    assert run.actions == ["List Files", "Understand File", "Final Answer"]
    assert run.env.steps_taken[1].args["things_to_look_for"] == 'the "accuracy"\nline'


@pytest.mark.parametrize("stop", [None, ()])
def test_an_imagined_observation_is_cut_off(
    tmp_path: Path, server: LLMServer, stop: tuple[str, ...] | None
) -> None:
    """The stop sequence cuts it at the provider; without one, the parser drops it."""
    dreamt = Reply(content=answer("List Files", {"dir_path": "."}).content
                   + "\nObservation: accuracy is 0.99")
    run = run_react(tmp_path, server, [dreamt, FINAL], sampling=SamplingChoice(stop=stop))
    assert server.requests[0].get("stop") == (None if stop == () else ["Observation:"])
    assert "0.99" not in run.prompt(1) and run.actions == ["List Files", "Final Answer"]


def test_steps_are_bounded_even_when_none_is_taken(tmp_path: Path, server: LLMServer) -> None:
    run = run_react(tmp_path, server, [answer("List Files", {"path": "."})] * 3 + [FINAL],
                    max_steps=3)
    assert run.result == "The agent took its 3 steps." and run.actions == []
