"""What the research agent's steps ask of each model and what they return, against
MLAgentBench's (docs/paper-parity.md names these tests in its rows): sampling per role,
summaries of long observations, retrieval mode, the reflection model, edits, script
output and tool-calling history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply, say
from react_trial import answer, environment, react_turn, run_react

from pytest_mlab import AgentOptions, StepLimitReached
from pytest_mlab.env.actions.options import ActionOptions
from pytest_mlab.llm import SamplingChoice

FINAL = answer("Final Answer", {"final_answer": "done"})
NEW_TRAIN = "print('accuracy: 0.9')\n"


def sampled(request: dict[str, Any]) -> tuple[Any, Any, Any]:
    return request.get("temperature"), request.get("max_tokens"), request.get("stop")


def understand_then_edit() -> list[Reply]:
    return [
        answer("Understand File", {"file_name": "train.py", "things_to_look_for": "metric"}),
        say("It prints accuracy (line 1)."),
        answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                    "edit_instruction": "print a higher accuracy"}),
        say(f"```python\n{NEW_TRAIN}```"),
        FINAL,
    ]


def test_each_role_samples_as_the_original_did(tmp_path: Path, server: LLMServer) -> None:
    """GPT main model: the OpenAI path's 0.2 and 500 tokens; the fast model 0.01; the
    edit model 4000 tokens; every call stops at "Observation:"."""
    run = run_react(tmp_path, server, understand_then_edit())
    stop = ["Observation:"]
    assert [sampled(r) for r in run.requests("gpt-4")] == [(0.2, 500, stop)] * 3
    assert [sampled(r) for r in run.requests("fast-model")] == [(0.01, 2000, stop)]
    assert [sampled(r) for r in run.requests("edit-model")] == [(0.5, 4000, stop)]
    assert (tmp_path / "ws" / "train.py").read_text() == NEW_TRAIN


def test_a_claude_main_model_samples_as_the_anthropic_path(
    tmp_path: Path, server: LLMServer
) -> None:
    run = run_react(tmp_path, server, [FINAL], main="openai/claude-3-opus")
    (request,) = run.requests("claude-3-opus")
    assert sampled(request) == (0.5, 2000, ["\n\nHuman:", "Observation:"])


def test_sampling_options_override_per_role(tmp_path: Path, server: LLMServer) -> None:
    choice = SamplingChoice(temperature={"main": 0.0, "fast": 0.0, "edit": 0.0},
                            max_output_tokens={"main": None, "edit": 8000}, stop=("END",))
    run = run_react(tmp_path, server, understand_then_edit(), sampling=choice)
    assert [sampled(r) for r in run.requests("gpt-4")] == [(0.0, None, ["END"])] * 3
    assert sampled(run.requests("fast-model")[0]) == (0.0, 2000, ["END"])
    assert sampled(run.requests("edit-model")[0]) == (0.0, 8000, ["END"])


def test_a_long_observation_is_summarised_block_by_block_then_merged(
    tmp_path: Path, server: LLMServer
) -> None:
    script = "for i in range(1000):\n    print(f'epoch {i:04d} loss {i / 9999:.6f}')\n"
    replies = [answer("Execute Script", {"script_name": "long.py"}),
               say("[Observation]: part one"), say("[Observation]: part two"),
               say("[Observation]: part three"),
               say("Merged.\n[Observation]: the loss rose from 0 to 0.0999"), FINAL]
    run = run_react(tmp_path, server, replies, files={"long.py": script})
    full = run.env.steps_taken[0].observation
    # 26,000 characters printed: the observation keeps the first and last 10,000
    assert 20_000 < len(full) < 20_500 and "characters of output cut here" in full
    blocks, merge = (run.requests("fast-model")[:3], run.requests("fast-model")[3])
    prompts = [r["messages"][0]["content"] for r in blocks]
    assert all("Action: Execute Script" in p and "[Observation]:" in p for p in prompts)
    assert "characters 1 to 10000:" in prompts[0] and "characters 10001 to 20000:" in prompts[1]
    assert f"characters 20001 to {len(full)}:" in prompts[2]
    assert "Segment 2:\n[Observation]: part two" in merge["messages"][0]["content"]
    assert "Observation:\n```\nthe loss rose from 0 to 0.0999\n```" in run.prompt(1)
    assert "epoch 0001" not in run.prompt(1)


def log_entry(n: int) -> Reply:
    return say(f"[Reasoning]: look {n}\n[Action]: listed .\n[Observation]: train.py")


def test_retrieval_mode_logs_every_step_and_retrieves_after_the_third(
    tmp_path: Path, server: LLMServer
) -> None:
    replies: list[Reply] = [answer("List Files", {"dir_path": "."}, "look 1"),
                            say("no format"), log_entry(1)]
    for n in (2, 3, 4):
        replies += [answer("List Files", {"dir_path": "."}, f"look {n}"), log_entry(n)]
    replies += [say("Steps 1-4 only listed files."), FINAL]
    run = run_react(tmp_path, server, replies, options=AgentOptions(retrieval=True))
    log = "Append Summary to Research Log"
    assert run.actions == ["List Files", log] * 4 + ["Retrieval from Research Log",
                                                       "Final Answer"]
    assert run.env.steps_taken[8].args == {"current_plan": ""}
    assert run.env.research_log[0] == ("Step 1:\n[Reasoning]: look 1\n[Action]: listed .\n"
                                       "[Observation]: train.py")
    assert "Now begin." in run.prompt(3) and "summary of the relevant" not in run.prompt(3)
    fifth = run.prompt(4)
    assert ("Here is a summary of the relevant actions you took and what you observed:\n```\n"
            "Steps 1-4 only listed files.\n```\nHere are your most recent steps") in fifth
    assert "Now begin." not in fifth
    assert [n for n in range(1, 5) if f"look {n}" in fifth.split("Steps 1-4")[1]] == [2, 3, 4]
    assert "\n- Reflection:\n" in run.prompt(0)  # shown in retrieval mode, as the original


def test_in_retrieval_mode_the_log_steps_count_toward_the_limit(
    tmp_path: Path, server: LLMServer
) -> None:
    replies = [answer("List Files", {"dir_path": "."}), log_entry(1)] * 3
    with pytest.raises(StepLimitReached):
        run_react(tmp_path, server, replies, options=AgentOptions(retrieval=True),
                  max_steps=5)
    assert len(server.requests) == 6  # the third step's log entry found no step left


def test_reflection_asks_the_fast_model(tmp_path: Path, server: LLMServer) -> None:
    replies = [answer("Reflection", {"things_to_reflect_on": "what to try next"}),
               say("Try a wider network."), FINAL]
    run = run_react(tmp_path, server, replies)
    (request,) = run.requests("fast-model")
    assert "Reflect on the following: what to try next" in request["messages"][0]["content"]
    assert run.env.steps_taken[0].observation == "Reflection: Try a wider network."


def test_an_edit_model_answering_in_prose_leaves_the_script_alone(
    tmp_path: Path, server: LLMServer
) -> None:
    replies = [answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                           "edit_instruction": "raise the accuracy"}),
               say("I would raise the learning rate and train for longer."),
               answer("Execute Script", {"script_name": "train.py"}), FINAL]
    run = run_react(tmp_path, server, replies)
    edit, execute = (step.observation for step in run.env.steps_taken[:2])
    assert "nothing was saved and train.py is unchanged" in edit
    assert execute == "The script ran to completion. Output:\naccuracy: 0.5"


SCRIPTS = {
    "ok.py": "import sys\nprint('accuracy: 0.7')\nprint('FutureWarning: noise', file=sys.stderr)\n",
    "quiet.py": "import sys\nprint('only on stderr', file=sys.stderr)\n",
    "bad.py": "print('half way')\nraise ValueError('shape mismatch')\n",
    "loud.py": "print('x' * 15000)\n",
}


@pytest.mark.parametrize(("script", "paper", "both"), [
    ("ok.py", "ran to completion. Output:\naccuracy: 0.7",
     "Output:\naccuracy: 0.7\nFutureWarning: noise"),
    ("quiet.py", "ran to completion. Output:\nonly on stderr", "Output:\nonly on stderr"),
    ("bad.py", "failed with exit code 1. Output:\nTraceback", "Output:\nhalf way\nTraceback"),
])
def test_execute_script_returns_stdout_and_stderr_only_on_failure(
    tmp_path: Path, server: LLMServer, script: str, paper: str, both: str
) -> None:
    env = environment(tmp_path / "paper", server, files=SCRIPTS)
    observation = env.execute("Execute Script", script_name=script)
    assert paper in observation
    assert ("noise" in observation, "half way" in observation) == (False, False)
    env = environment(tmp_path / "both", server, files=SCRIPTS,
                      action_options=ActionOptions(script_output="both"))
    assert both in env.execute("Execute Script", script_name=script)


def test_execute_script_output_is_not_clipped_unless_both_streams_are_asked_for(
    tmp_path: Path, server: LLMServer
) -> None:
    env = environment(tmp_path / "paper", server, files=SCRIPTS)
    assert "x" * 15000 in env.execute("Execute Script", script_name="loud.py")
    env = environment(tmp_path / "both", server, files=SCRIPTS,
                      action_options=ActionOptions(script_output="both"))
    clipped = env.execute("Execute Script", script_name="loud.py")
    assert "characters elided" in clipped and len(clipped) < 10_200


def test_tool_calling_history_shows_each_steps_tool_and_arguments(
    tmp_path: Path, server: LLMServer
) -> None:
    thoughts = "Reflection: none yet\nResearch Plan and Status: 1. run\nFact Check: -\nThought: run"

    def calls(*pairs: tuple[str, dict[str, Any]]) -> Reply:
        return Reply(content=thoughts, tool_calls=pairs)

    replies = [calls(("execute_script", {"script_name": "x"}), ("list_files", {"dir_path": "."})),
               calls(("fly", {})), calls(("execute_script", {"script": "train.py"})),
               calls(("execute_script", {"script_name": "train.py"})),
               Reply(tool_calls=(("final_answer", {"final_answer": "ran it"}),))]
    run = run_react(tmp_path, server, replies, options=AgentOptions(tool_calling=True))
    assert run.actions == ["Execute Script", "Final Answer"]
    assert len(run.requests("gpt-4")) == 5  # two calls at once, an unknown tool: asked again
    assert "then call exactly one of the tools" in run.prompt(1)
    assert "could not be used: its entries are script." in run.prompt(3)  # no step taken
    last = run.prompt(4)
    assert ('Thought: run\nAction: Execute Script\nAction Input: {"script_name": "train.py"}\n'
            "Observation:\n```\nThe script ran to completion. Output:\naccuracy: 0.5\n```") in last
    assert "could not be used: its entries are script." not in last  # forgotten once a step ran
    tools = {t["function"]["name"] for t in run.requests("gpt-4")[0]["tools"]}
    assert tools == {"list_files", "copy_file", "undo_edit_script", "execute_script",
                     "final_answer", "understand_file", "inspect_script_lines", "edit_script_ai"}


TOO_LONG = Reply(status=400, content="This model's maximum context length is 8192 tokens. "
                                     "However, your messages resulted in 9000 tokens.")


def test_a_prompt_too_long_for_a_tool_is_its_observation(
    tmp_path: Path, server: LLMServer
) -> None:
    replies = [answer("Edit Script (AI)", {"script_name": "train.py", "save_name": "train.py",
                                           "edit_instruction": "raise the accuracy"}),
               TOO_LONG, FINAL]
    run = run_react(tmp_path, server, replies)
    assert run.env.steps_taken[0].observation == (
        "Invalid action: The input is too long for the edit model.")
    assert run.actions == ["Edit Script (AI)", "Final Answer"]


def test_a_prompt_too_long_for_the_main_model_ends_the_agents_turn(
    tmp_path: Path, server: LLMServer
) -> None:
    # --mlab-long-prompt=stop: the turn ends at the first refusal; the workspace is scored.
    ended, run = react_turn(tmp_path, server, [answer("List Files", {"dir_path": "."}),
                                               TOO_LONG],
                            options=AgentOptions(long_prompt="stop"))
    assert (ended.ended_by, ended.agent_error) == ("prompt too long", None)
    assert run.actions == ["List Files"] and run.env.final_answer is None
    assert len(server.requests) == 2


def test_a_prompt_too_long_is_retried_once_with_older_steps_dropped(
    tmp_path: Path, server: LLMServer
) -> None:
    replies = [answer("List Files", {"dir_path": "."}), answer("List Files", {"dir_path": "."}),
               TOO_LONG, answer("Final Answer", {"final_answer": "done"})]
    run = run_react(tmp_path, server, replies)
    assert run.actions == ["List Files", "List Files", "Final Answer"]
    retried = run.prompt(3)
    assert "Your earlier steps were dropped from this prompt" in retried
    assert retried.count("\nAction: List Files") == 1  # only the last step is shown
    # A second refusal in a row ends the turn, and the workspace is scored.
    again, _ = react_turn(tmp_path / "again", server, [TOO_LONG, TOO_LONG])
    assert (again.ended_by, again.agent_error) == ("prompt too long", None)


def test_each_step_keeps_the_reasoning_that_chose_it_in_its_trace_line(
    tmp_path: Path, server: LLMServer
) -> None:
    from pytest_mlab.agents.react import ReactAgent

    from pytest_mlab import AgentContext
    from pytest_mlab.core.trace import Trace, read_trace
    from pytest_mlab.trial.act import let_agent_act

    server.script.replies += [answer("List Files", {"dir_path": "."}, "look at the files first"),
                              FINAL]
    env = environment(tmp_path, server)
    env.trace = Trace(tmp_path / "trace.jsonl")
    let_agent_act(ReactAgent(AgentContext(task="parity", llm="gpt-4")), env)
    listed, final = read_trace(tmp_path / "trace.jsonl")
    assert "Thought: look at the files first" in listed.thought
    assert "Research Plan and Status: 1. measure the baseline" in listed.thought
    assert listed.action == "List Files" and final.action == "Final Answer"
    assert "Thought: next" in final.thought
