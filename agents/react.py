"""The research agent: ReAct with a research plan, written anew after MLAgentBench.

Each step the main model answers with named fields and chooses one action; the last
three steps are shown in full, older ones in a line each; long observations are
summarised by the fast model; an unreadable answer is asked for again.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from pytest_mlab import Action, AgentContext, Completion, Environment, LLMClient
from pytest_mlab.core.text import clip

from .react_format import Decision, Unreadable, json_object, parse_response
from .react_prompt import Memory, history, instructions

VISIBLE_ACTIONS = (
    "List Files", "Copy File", "Undo Edit Script", "Execute Script", "Understand File",
    "Inspect Script Lines", "Edit Script (AI)", "Reflection", "Request Help", "Final Answer",
)
"""Shown by default, as in the original; the others stay valid if the model names them."""
LONG_OBSERVATION = 5_000
_SUMMARY_INPUT_LIMIT = 40_000


class AgentGaveUp(Exception):
    """The model gave no readable answer in all its attempts."""


def tool_name(action: str) -> str:
    """Providers accept only [a-zA-Z0-9_-] in function names."""
    return re.sub(r"[^a-z0-9]+", "_", action.lower()).strip("_")


class ReactAgent:
    uses_llm: ClassVar[bool] = True
    needs_solution: ClassVar[bool] = False

    def __init__(self, context: AgentContext) -> None:
        self.options = context.options
        self.memories: list[Memory] = []

    def run(self, env: Environment) -> str:
        if env.llm is None:
            raise RuntimeError("the react agent needs an LLM: run it with --llm MODEL")
        llm = env.llm
        actions = [env.actions[name] for name in VISIBLE_ACTIONS if name in env.actions]
        system = instructions(env.research_problem, actions, self.options.tool_calling)
        while True:
            retrieved = self._retrieve(llm, env) if self.options.retrieval else None
            messages = [{"role": "system", "content": system},
                        {"role": "user", "content": history(self.memories, retrieved)}]
            response, decision = self._decide(llm, messages, actions)
            observation = env.execute(decision.action, **decision.args)
            if env.final_answer is not None:
                return env.final_answer
            shown = self._shorten(llm, decision.action, observation)
            memory = Memory(env.steps, response, decision.action,
                            json.dumps(decision.args), shown)
            self.memories.append(memory)
            if self.options.retrieval:
                self._log(llm, env, memory)

    def _decide(self, llm: LLMClient, messages: list[dict[str, Any]],
                actions: list[Action]) -> tuple[str, Decision]:
        tools = None
        if self.options.tool_calling:
            tools = [{"type": "function",
                      "function": {**a.json_schema(), "name": tool_name(a.name)}}
                     for a in actions]
        problems = []
        for _ in range(self.options.invalid_retries + 1):
            completion = llm.complete(messages, tools=tools)
            try:
                decision = (self._from_tool_call(completion, actions) if tools
                            else parse_response(completion.text))
                return completion.text, decision
            except Unreadable as exc:
                problems.append(str(exc))
                messages = [*messages,
                            {"role": "assistant", "content": completion.text or "(no text)"},
                            {"role": "user", "content": f"That answer could not be used: {exc}. "
                             "Answer again, following the format exactly."}]
        raise AgentGaveUp(f"no usable answer in {len(problems)} attempts; "
                          f"last problem: {problems[-1]}")

    @staticmethod
    def _from_tool_call(completion: Completion, actions: list[Action]) -> Decision:
        if not completion.tool_calls:
            raise Unreadable("call exactly one tool")
        call = completion.tool_calls[0]
        by_tool = {tool_name(a.name): a.name for a in actions}
        action = by_tool.get(call.name, call.name)
        return Decision({"Thought": completion.text}, action, json_object(call.arguments or "{}"))

    @staticmethod
    def _shorten(llm: LLMClient, action: str, observation: str) -> str:
        if len(observation) <= LONG_OBSERVATION:
            return observation
        summary = llm.complete([{"role": "user", "content": (
            f"Below is the output of the action {action} in an ML experiment. Summarise it "
            "in under 300 words for the researcher who ran it: keep every number, error "
            "message and file name that matters.\n\n" + clip(observation, _SUMMARY_INPUT_LIMIT)
        )}], role="fast").text
        return f"(summary of {len(observation)} characters of output)\n{summary}"

    @staticmethod
    def _log(llm: LLMClient, env: Environment, memory: Memory) -> None:
        note = llm.complete([{"role": "user", "content": (
            "Write a research-log entry of at most 5 lines for this step: what was done, "
            "what was observed (numbers included), what it means.\n\n"
            f"Step {memory.step}, the researcher's answer:\n{memory.response}\n\n"
            f"Observation:\n{memory.observation}"
        )}], role="fast").text
        env.research_log.append(f"Step {memory.step}: {note.strip()}")

    def _retrieve(self, llm: LLMClient, env: Environment) -> str | None:
        if not env.research_log:
            return None
        plan = self.memories[-1].response if self.memories else ""
        return llm.complete([{"role": "user", "content": (
            "From the research log below, copy or condense what matters for the current "
            f"plan.\n\nCurrent plan and last answer:\n{plan}\n\nResearch log:\n"
            + clip("\n".join(env.research_log), _SUMMARY_INPUT_LIMIT)
        )}], role="fast").text
