"""The LangChain agent over the research actions, in one of two styles.

``react`` (the default) is a text ReAct agent, as MLAgentBench's LangChain agent was, so
its numbers compare with the paper's (langchain_react.py). ``tools`` is a native
tool-calling loop: the model is shown the task and the last few exchanges, calls tools
(one step each) and sees their results, until it calls final_answer. LangChain is an
optional extra, imported only when a trial runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pytest_mlab import Action, AgentContext, Environment, PromptTooLong

from .react_prompt import prompt_actions

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.tools import BaseTool

    from .langchain_model import EnvChatModel

KEPT_EXCHANGES = 6
"""Model answers (with their tool results) kept in the prompt after the task."""

SYSTEM = (
    "You are a helpful research assistant doing a machine-learning experiment. Work with "
    "the tools you are given: look at the files, run and improve the scripts, and measure "
    "what you change. When you have solved the task as well as you can, call the "
    "final_answer tool; nothing after it is run."
)
NUDGE = "Call one of the tools to go on, or final_answer when you are done."


class LangChainAgent:
    """The LangChain agent (``--agent=langchain``), in the style ``--mlab-langchain-style``
    chooses: text ReAct as the original's (default) or native tool calls."""

    uses_llm: ClassVar[bool] = True
    needs_solution: ClassVar[bool] = False
    requires: ClassVar[tuple[str, ...]] = ("langchain_core",)
    extra: ClassVar[str] = "langchain"

    def __init__(self, context: AgentContext) -> None:
        self.retries = context.options.invalid_retries
        self.style = context.options.langchain_style
        self.long_prompt = context.options.long_prompt

    def run(self, env: Environment) -> str:
        if env.llm is None:
            raise RuntimeError("the langchain agent needs an LLM: run it with --llm MODEL")
        from .langchain_model import EnvChatModel

        # The original's LangChain agent saw the research agent's default actions, and
        # no Reflection (that comes only with retrieval, which it had not).
        actions = prompt_actions(env, retrieval=False)
        model = EnvChatModel(client=env.llm)
        try:
            if self.style == "react":
                from .langchain_react import run_react

                return run_react(env, model, actions)
            return self._call_tools(env, model, actions)
        except PromptTooLong as exc:
            # The turn ends ("prompt too long"), as the original's run did; it never
            # retries, and --mlab-long-prompt=fail fails the trial as the original's failed.
            exc.fails_trial = self.long_prompt == "fail"
            raise

    def _call_tools(self, env: Environment, chat: EnvChatModel, actions: list[Action]) -> str:
        from langchain_core.messages import HumanMessage, SystemMessage

        from .langchain_model import action_tools

        tools = {tool.name: tool for tool in action_tools(env, actions)}
        model = chat.bind_tools(list(tools.values()))
        opening = [SystemMessage(SYSTEM), HumanMessage(env.research_problem)]
        exchanges: list[list[BaseMessage]] = []
        unused = 0
        while True:
            recent = [m for exchange in exchanges[-KEPT_EXCHANGES:] for m in exchange]
            reply = model.invoke([*opening, *recent])
            exchanges.append([reply, *self._act(env, tools, reply)])
            if env.final_answer is not None:
                return env.final_answer
            unused = 0 if reply.tool_calls else unused + 1
            if unused > self.retries:
                return f"No usable tool call in {unused} answers in a row; the agent stopped."

    @staticmethod
    def _act(env: Environment, tools: dict[str, BaseTool], reply: AIMessage) -> list[BaseMessage]:
        """The results of the reply's tool calls, in order; every call is answered."""
        from langchain_core.messages import HumanMessage, ToolMessage

        results: list[BaseMessage] = []
        for call in reply.tool_calls:
            tool = tools.get(call["name"])
            if tool is None:  # still a step, as for any agent naming an unknown action
                observation = env.execute(call["name"], **call["args"])
                results.append(ToolMessage(observation, tool_call_id=call["id"] or ""))
            else:
                results.append(tool.invoke(call))
            if env.final_answer is not None:
                return results
        results += [ToolMessage(f"Invalid tool call: {bad['error']}", tool_call_id=bad["id"] or "")
                    for bad in reply.invalid_tool_calls]
        if not reply.tool_calls and not reply.invalid_tool_calls:
            results.append(HumanMessage(NUDGE))
        return results
