"""The research agent: ReAct with a research plan, written anew after MLAgentBench.

Each step the main model answers with named fields and chooses one action. An answer
that lacks a field or names no known action is asked for again, at no step's cost; an
Action Input that cannot be read is shown back to the model, also at no cost. The prompt
holds the instructions and the last three steps; long observations are summarised by the
fast model. In retrieval mode every step is summarised into the research log and, after
the third step, what matters is retrieved from it; both are steps of the environment. A
prompt too long for a model ends the turn ("prompt too long"), by default after one retry
with older steps dropped.
docs/paper-parity.md compares it with the original point by point.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

from pytest_mlab import (
    Action,
    AgentContext,
    Completion,
    Environment,
    LLMClient,
    PromptTooLong,
    StepLimitReached,
    TimeLimitReached,
)

from .react_format import (
    ArgumentError,
    Decision,
    Unreadable,
    argument_error,
    fields_of,
    parse_action_input,
    parse_response,
)
from .react_history import RECENT_STEPS, Memory, answer_text, history, tool_answer_text
from .react_paper_prompt import PaperPrompt
from .react_prompt import instructions, prompt_actions, retry_note
from .react_summary import LONG_OBSERVATION, log_entry, summarise_observation

DROPPED = ("(Your earlier steps were dropped from this prompt: with them it was too long for "
           "the model. Only the last step is shown.)\n\n")


def tool_name(action: str) -> str:
    """Providers accept only [a-zA-Z0-9_-] in function names."""
    return re.sub(r"[^a-z0-9]+", "_", action.lower()).strip("_")


def _tools(actions: list[Action]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {**a.json_schema(), "name": tool_name(a.name)}}
            for a in actions]


def _check_limits(env: Environment) -> None:
    """As the original checked before asking for each answer: no model call for a step
    that could not be taken (a script running at the limit is stopped by its timeout)."""
    if env.steps_left <= 0:
        raise StepLimitReached(f"step limit of {env.limits.max_steps} reached")
    if env.seconds_left <= 0:
        raise TimeLimitReached(f"time limit of {env.limits.max_time:g}s reached")


class ReactAgent:
    """MLAgentBench's research agent (``--agent=react``); ``context.options`` chooses
    retrieval mode, native tool calling, the history and the message layout."""

    uses_llm: ClassVar[bool] = True
    needs_solution: ClassVar[bool] = False

    def __init__(self, context: AgentContext) -> None:
        self.options = context.options
        self.memories: list[Memory] = []
        self.steps = 0
        self.start: str | None = None
        """With --mlab-paper-prompt: the text the original adds before its first step."""

    def run(self, env: Environment) -> str:
        if env.llm is None:
            raise RuntimeError("the react agent needs an LLM: run it with --llm MODEL")
        try:
            return self._work(env, env.llm)
        except PromptTooLong as exc:
            # The turn ends ("prompt too long"); MLAgentBench's run ended there too, with
            # no final workspace: with --mlab-long-prompt=fail the trial fails likewise.
            exc.fails_trial = self.options.long_prompt == "fail"
            raise

    def _work(self, env: Environment, llm: LLMClient) -> str:
        shown = prompt_actions(env, self.options.retrieval)
        tools = _tools(shown) if self.options.tool_calling else None
        system = instructions(env.research_problem, shown, self.options.tool_calling)
        if self.options.paper_prompt and not self.options.tool_calling:
            paper = PaperPrompt.from_checkout(Path(self.options.paper_prompt))
            system = paper.instructions(env.research_problem, [a.name for a in shown])
            self.start = paper.start
        # As the original, the agent stops after as many of its own steps as the
        # environment allows, counting unreadable Action Inputs still in its history.
        while len(self.memories) < env.limits.max_steps:
            _check_limits(env)
            retrieved = None
            if self.options.retrieval and len(self.memories) > RECENT_STEPS:
                retrieved = env.execute("Retrieval from Research Log", current_plan="")
            body = history(self.memories, retrieved, self.options.history == "compact")
            try:
                decided = self._decide(llm, env, self._messages(system, body), tools)
            except PromptTooLong:
                if self.options.long_prompt != "retry":
                    raise
                # Drop older context and try once more; a second refusal ends the turn.
                short = DROPPED + history(self.memories[-1:], None, compact=False)
                decided = self._decide(llm, env, self._messages(system, short), tools)
            if decided is None:
                return (f"No usable answer in {self.options.invalid_retries + 1} attempts; "
                        "the agent stopped.")
            memory = self._act(llm, env, *decided)
            if env.final_answer is not None:
                return env.final_answer
            if not memory.argument_error:
                self.memories = [m for m in self.memories if not m.argument_error]
            self.memories.append(memory)
            if self.options.retrieval:
                entry = log_entry(llm, memory.answer, memory.observation,
                                  self.options.invalid_retries + 1)
                env.execute("Append Summary to Research Log",
                            content=f"Step {memory.number}:\n{entry}")
        return f"The agent took its {env.limits.max_steps} steps."

    def _messages(self, system: str, body: str) -> list[dict[str, Any]]:
        if self.start is not None and not self.memories:
            # The paper's own first prompt, byte for byte: its instructions, then what its
            # run() adds before the first step.
            body = self.start
            if not self.options.system_prompt:
                return [{"role": "user", "content": system + body}]
        if self.options.system_prompt:
            return [{"role": "system", "content": system}, {"role": "user", "content": body}]
        return [{"role": "user", "content": f"{system}\n{body}"}]

    def _decide(self, llm: LLMClient, env: Environment, messages: list[dict[str, Any]],
                tools: list[dict[str, Any]] | None) -> tuple[str, Decision] | None:
        """The model's usable answer and its decision; None after every attempt failed.
        As the original, each retry adds a reminder of the format to the prompt."""
        for _ in range(self.options.invalid_retries + 1):
            completion = llm.complete(messages, tools=tools)
            try:
                if tools is not None:
                    return completion.text, self._from_tool_call(completion, env)
                lenient = self.options.answer_parsing == "lenient"
                return completion.text, parse_response(completion.text, env.actions,
                                                       lenient=lenient)
            except Unreadable:
                last = messages[-1]
                note = retry_note(tools is not None)
                messages = [*messages[:-1], {**last, "content": last["content"] + note}]
        return None

    @staticmethod
    def _from_tool_call(completion: Completion, env: Environment) -> Decision:
        if len(completion.tool_calls) != 1:
            raise Unreadable("call exactly one tool")
        call = completion.tool_calls[0]
        by_tool = {tool_name(name): name for name in env.actions}
        if call.name not in by_tool:
            raise Unreadable(f"{call.name!r} is not a tool")
        return Decision(fields_of(completion.text), by_tool[call.name], call.arguments or "{}")

    def _act(self, llm: LLMClient, env: Environment, text: str, decision: Decision) -> Memory:
        """Take the step (unless its input is unreadable) and remember it."""
        self.steps += 1
        action = env.actions[decision.action]
        args: dict[str, Any] | None = None
        try:
            args = parse_action_input(decision.raw_input, list(action.parameters))
        except ArgumentError as exc:
            observation = argument_error(decision.action, action.parameters, str(exc))
        shown_input = decision.raw_input if args is None else json.dumps(args)
        if self.options.tool_calling:
            answer = tool_answer_text(text, decision.action, shown_input)
        else:
            answer = answer_text(decision.fields)
        if args is not None:
            env.note_thought(answer)
            observation = env.execute(decision.action, **args)
            if len(observation) > LONG_OBSERVATION and env.final_answer is None:
                observation = summarise_observation(llm, answer, observation)
        return Memory(self.steps, answer, decision.action, shown_input, observation,
                      argument_error=args is None)
