"""The trial's LLM client and actions as LangChain sees them: a chat model and tools.

Imported only by the langchain agent at run time, so the plugin works without the extra.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, cast

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.messages.tool import invalid_tool_call, tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from pytest_mlab import Action, Completion, Environment, LLMClient
from pytest_mlab.core.text import clip

from .react import tool_name
from .react_summary import LONG_OBSERVATION


class EnvChatModel(BaseChatModel):
    """A LangChain chat model whose every call goes through the trial's ``LLMClient``,
    so tokens, cost, budgets and record/replay apply as for any other agent. It samples
    as the main role; a ``stop`` LangChain passes adds to the role's stop sequences."""

    client: LLMClient

    @property
    def _llm_type(self) -> str:
        return "pytest-mlab"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools: list[dict[str, Any]] | None = kwargs.get("tools")
        completion = self.client.complete([to_openai(m) for m in messages], tools=tools,
                                          stop=stop or ())
        return ChatResult(generations=[ChatGeneration(message=from_completion(completion))])

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Offer ``tools`` on every call; the client has no ``tool_choice``, so it is ignored."""
        bound = self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)
        return cast(Runnable[LanguageModelInput, AIMessage], bound)


def _openai_call(call_id: str | None, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id or "", "type": "function",
            "function": {"name": name, "arguments": arguments}}


def to_openai(message: BaseMessage) -> dict[str, Any]:
    """One LangChain message as an OpenAI-style chat message."""
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": message.text}
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.text}
    if isinstance(message, AIMessage):
        out: dict[str, Any] = {"role": "assistant", "content": message.text}
        calls = [_openai_call(c["id"], c["name"], json.dumps(c["args"]))
                 for c in message.tool_calls]
        calls += [_openai_call(c["id"], c["name"] or "", c["args"] or "")
                  for c in message.invalid_tool_calls]
        if calls:
            out["tool_calls"] = calls
        return out
    return {"role": "user", "content": message.text}


def from_completion(completion: Completion) -> AIMessage:
    """A client's completion as an ``AIMessage``; unparsable arguments become invalid calls."""
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for call in completion.tool_calls:
        try:
            args = json.loads(call.arguments or "{}")
        except ValueError:
            args = None
        if isinstance(args, dict):
            calls.append(tool_call(name=call.name, args=args, id=call.id))
        else:
            invalid.append(invalid_tool_call(
                name=call.name, args=call.arguments, id=call.id,
                error="the arguments must be a JSON object"))
    usage = completion.usage
    return AIMessage(
        content=completion.text, tool_calls=calls, invalid_tool_calls=invalid,
        usage_metadata={"input_tokens": usage.tokens_in, "output_tokens": usage.tokens_out,
                        "total_tokens": usage.tokens_in + usage.tokens_out},
        response_metadata={"model_name": completion.model},
    )


def action_tools(env: Environment, actions: Sequence[Action]) -> list[BaseTool]:
    """One tool per action, under its provider-safe name; each call is one step in ``env``."""

    def make(action: Action) -> BaseTool:
        def run(**args: Any) -> str:
            return clip(env.execute(action.name, **args), LONG_OBSERVATION)

        return StructuredTool(name=tool_name(action.name), description=action.description,
                              args_schema=action.json_schema()["parameters"], func=run)

    return [make(action) for action in actions]
