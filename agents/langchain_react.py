"""The langchain agent's text ReAct style, as MLAgentBench ran LangChain.

The original used LangChain's zero-shot ReAct agent: one prompt with the tools, the task
as the question and a scratchpad of every earlier Thought, Action, Action Input and
Observation, in full; the model stops before it would write an observation. An answer
that cannot be parsed, an unknown tool or an unreadable Action Input is answered with an
observation and counts as an iteration, but not as a step of the environment. Imported
only when a trial runs, so the plugin works without the extra.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.messages import HumanMessage
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import Tool

from pytest_mlab import Action, Environment

from .langchain_model import EnvChatModel
from .react_format import ArgumentError, argument_error, parse_action_input
from .react_prompt import details

REACT_STOP = ("\nObservation:", "\n\tObservation:")
"""Where LangChain's ReAct agent stops the model, added to the role's own stop."""

TEMPLATE = PromptTemplate.from_template(
    "Carry out the task below as well as you can. You can use these tools:\n\n{tools}\n\n"
    "Use this format:\n\n"
    "Question: the task you must carry out\n"
    "Thought: what you should do next; always think first\n"
    "Action: the tool to use, one of [{tool_names}]\n"
    "Action Input: the tool's input, as JSON\n"
    "Observation: what the tool returned\n"
    "... (Thought, Action, Action Input and Observation may repeat many times)\n"
    "Thought: I now know the final answer\n"
    "Final Answer: your final answer to the task\n\n"
    "Begin!\n\nQuestion: {input}\nThought:{agent_scratchpad}"
)
_ACTION = re.compile(r"Action\s*:[\s]*(.*?)[\s]*Action\s*Input\s*:[\s]*(.*)", re.DOTALL)
_FINAL = "Final Answer:"


def parse_step(text: str) -> AgentAction | AgentFinish | str:
    """The model's step: a tool call, the final answer, or what is wrong with it. Only
    the text after its last "Thought:" counts, as in the original's parser."""
    text = text.rsplit("Thought:", 1)[-1]
    action = _ACTION.search(text)
    if action is not None and _FINAL in text:
        return "it gives both a Final Answer and an Action; give one of them"
    if action is not None:
        tool_input = action.group(2).strip().strip('"')
        return AgentAction(action.group(1).strip(), tool_input, text)
    if _FINAL in text:
        return AgentFinish({"output": text.split(_FINAL, 1)[1].strip()}, text)
    return "there is no Action: line after the Thought: (or no Final Answer:)"


def env_tools(env: Environment, actions: Sequence[Action]) -> list[Tool]:
    """One text tool per action: its input is parsed as the research agent's is, and an
    unreadable one is shown back without taking a step."""

    def make(action: Action) -> Tool:
        def run(tool_input: str) -> str:
            try:
                args = parse_action_input(tool_input, list(action.parameters))
            except ArgumentError as exc:
                return argument_error(action.name, action.parameters, str(exc))
            return env.execute(action.name, **args)

        return Tool(name=action.name, func=run, description=details(action))

    return [make(action) for action in actions]


def _scratchpad(steps: list[tuple[AgentAction, str]]) -> str:
    return "".join(f"{step.log}\nObservation: {observation}\nThought: "
                   for step, observation in steps)


def run_react(env: Environment, model: EnvChatModel, actions: Sequence[Action]) -> str:
    """Act until the model gives its final answer or the iterations run out."""
    tools = {tool.name: tool for tool in env_tools(env, actions)}
    described = "\n\n".join(f"{name}: {tool.description}" for name, tool in tools.items())
    steps: list[tuple[AgentAction, str]] = []
    while len(steps) < env.limits.max_steps:
        prompt = TEMPLATE.format(tools=described, tool_names=", ".join(tools),
                                 input=env.research_problem, agent_scratchpad=_scratchpad(steps))
        reply = model.invoke([HumanMessage(prompt)], stop=list(REACT_STOP))
        step = parse_step(reply.text)
        if isinstance(step, AgentFinish):
            answer = str(step.return_values["output"])
            env.execute("Final Answer", final_answer=answer)
            return answer
        if isinstance(step, str):
            steps.append((AgentAction("_invalid", "", reply.text),
                          f"Invalid or incomplete answer: {step}."))
            continue
        tool = tools.get(step.tool)
        observation = (tool.run(str(step.tool_input)) if tool is not None else
                       f"{step.tool} is not a tool; use one of [{', '.join(tools)}].")
        if env.final_answer is not None:
            return env.final_answer
        steps.append((step, observation))
    return f"The agent stopped after {len(steps)} iterations."
