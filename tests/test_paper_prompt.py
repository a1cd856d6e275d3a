"""--mlab-paper-prompt=CHECKOUT (issue 42): the research agent's prompt built from a
checkout of MLAgentBench's own texts at run time. The checkout here is one of the same
shape with this test's own words: nothing of the original's text is in this project."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from llm_server import LLMServer
from pytest_mlab.agents.react_format import FIELDS
from pytest_mlab.agents.react_paper_prompt import PaperPrompt, PaperPromptError
from pytest_mlab.agents.react_prompt import PROMPT_ACTIONS
from react_trial import PROBLEM, answer, run_react

from pytest_mlab import AgentOptions
from pytest_mlab.llm.client import import_litellm

import_litellm()  # once per process, as test_llm_agents.py explains

RESEARCH = '''
initial_prompt = """INTRO {tools_prompt}
PROBLEM IS: {task_description}
FORMAT:
{format_prompt}
"""

format_prompt_dict = {fields}


class ResearchAgent:
    def run(self, env):
        prompt = self.initial_prompt
        if len(self.history_steps) > 3:
            pass
        else:
            prompt += "\\nGO!\\n\\n"
'''

AGENT = '''
class Agent:
    @staticmethod
    def construct_tool_prompt(tool_name, action_info):
        tool = action_info
        usage = ";\\n  ".join([f"<{k}> [{v}]" for k, v in tool.usage.items()])
        tools_prompt = f"""  {tool.description}
  U: {tool_name} {{
  {usage}
  }} -> [{tool.return_value}]
        """.strip() + "\\n\\n"
        return tools_prompt

    @classmethod
    def construct_tools_prompt(cls, tool_names, action_infos):
        tools_prompt = ""
        for tool_name in tool_names:
            tools_prompt += f"""* {tool_name}:
"""
            tools_prompt += cls.construct_tool_prompt(tool_name, action_infos[tool_name])
        return tools_prompt
'''


def _actions(names: list[str]) -> str:
    calls = [f"ActionInfo(name={name!r}, description='does {name}', "
             f"usage={{'arg': 'an argument'}}, return_value='what {name} gives', "
             "function=some_function)" for name in names]
    return "ACTIONS = [\n    " + ",\n    ".join(calls) + ",\n]\n"


def checkout(root: Path) -> Path:
    package = root / "MLAgentBench"
    (package / "agents").mkdir(parents=True)
    fields = {name: f"say the {name.lower()}" for name in FIELDS}
    (package / "agents" / "agent_research.py").write_text(RESEARCH.replace(
        "{fields}", repr(fields)))
    (package / "agents" / "agent.py").write_text(textwrap.dedent(AGENT))
    names = [*PROMPT_ACTIONS, "Reflection"]
    (package / "low_level_actions.py").write_text(_actions(names[:5]))
    (package / "high_level_actions.py").write_text(_actions(names[5:]))
    return root


def expected(names: list[str]) -> str:
    """The same prompt, put together by hand as the original's code would."""
    tools = "".join(f"* {name}:\n{'does ' + name}\n  U: {name} {{\n  <arg> [an argument]\n"
                    f"  }} -> [what {name} gives]\n\n" for name in names)
    fields = "\n".join(f"{name}: say the {name.lower()}" for name in FIELDS)
    return f"INTRO {tools}\nPROBLEM IS: {PROBLEM}\nFORMAT:\n{fields}\n\nGO!\n\n"


def test_the_first_prompt_is_the_checkouts_byte_for_byte(
    tmp_path: Path, server: LLMServer,
) -> None:
    options = AgentOptions(paper_prompt=str(checkout(tmp_path / "co")))
    run = run_react(tmp_path, server, [answer("Final Answer", {"final_answer": "done"})],
                    options=options)
    (message,) = run.requests(run.env.llm.config.main.removeprefix("openai/"))[0]["messages"]
    shown = [name for name in PROMPT_ACTIONS if name in run.env.actions]
    assert message == {"role": "user", "content": expected(shown)}


def test_a_checkout_without_the_texts_is_one_sentence(tmp_path: Path) -> None:
    root = checkout(tmp_path / "co")
    (root / "MLAgentBench" / "agents" / "agent_research.py").write_text("x = 1\n")
    with pytest.raises(PaperPromptError, match=r"agent_research\.py has no literal initial_prompt"):
        PaperPrompt.from_checkout(root)
    with pytest.raises(PaperPromptError, match="cannot be read as Python"):
        PaperPrompt.from_checkout(tmp_path / "nowhere")
    names = [name for name in PROMPT_ACTIONS if name != "Inspect Script Lines"]
    (root / "MLAgentBench" / "high_level_actions.py").write_text(_actions(names[5:]))
    (root / "MLAgentBench" / "agents" / "agent_research.py").write_text(RESEARCH.replace(
        "{fields}", repr({name: "x" for name in FIELDS})))
    with pytest.raises(PaperPromptError, match="actions lack Inspect Script Lines"):
        PaperPrompt.from_checkout(root).instructions("p", list(PROMPT_ACTIONS))


def test_the_header_says_which_words_the_agent_uses(tmp_path: Path) -> None:
    assert "prompt=pytest-mlab's wording (differs from the paper's" in AgentOptions().describe()
    assert f"prompt=the paper's, from {tmp_path}" in AgentOptions(
        paper_prompt=str(tmp_path)).describe()


def test_a_bad_checkout_stops_the_session_before_any_trial(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--mlab-paper-prompt=nowhere", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --mlab-paper-prompt: */nowhere/MLAgentBench/agents/"
                                 "agent_research.py cannot be read as Python*"])
