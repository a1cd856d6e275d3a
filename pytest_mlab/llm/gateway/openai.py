"""The OpenAI chat-completions wire format of the LLM gateway: requests in, answers out.

An external agent's request becomes a call of the trial's client: its messages and tools
as sent, its own sampling fields (not the native agents' defaults), any model name. The
answer is the client's, written back as a chat completion or as its stream of chunks.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from pytest_mlab.llm.budget import TOKEN_FIELDS
from pytest_mlab.llm.usage import Completion

SAMPLING_FIELDS = (
    "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "seed",
    "presence_penalty", "frequency_penalty", "response_format", "tool_choice",
    "reasoning_effort", "parallel_tool_calls",
)
"""The request fields passed on as the agent sent them; the rest are dropped."""


class BadRequest(Exception):
    """The request cannot be answered as sent; the message says why, in one sentence."""


def check_token_fields(sampling: dict[str, Any]) -> dict[str, Any]:
    """``sampling``, once its output-token fields are whole numbers above zero (the client
    lowers them to what the budget has left)."""
    for name in TOKEN_FIELDS:
        value = sampling.get(name)
        if value is not None and (type(value) is not int or value < 1):
            raise BadRequest(f"{name} must be a whole number above zero")
    return sampling


@dataclass(frozen=True)
class ChatRequest:
    """One call, as the trial's client takes it."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    sampling: dict[str, Any]
    stream: bool
    model: str
    """The name the agent asked for: echoed back, never used to pick the model."""


def parse_chat(body: dict[str, Any]) -> ChatRequest:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("a chat completion needs a non-empty list of messages")
    if body.get("n", 1) not in (1, None):
        raise BadRequest("the gateway answers one choice per request (n=1)")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise BadRequest("tools must be a list")
    sampling = check_token_fields(
        {name: body[name] for name in SAMPLING_FIELDS if body.get(name) is not None})
    return ChatRequest(messages, tools or None, sampling, bool(body.get("stream")),
                       str(body.get("model") or "mlab"))


def _tool_calls(completion: Completion) -> list[dict[str, Any]]:
    return [{"id": call.id or f"call_{n}", "type": "function",
             "function": {"name": call.name, "arguments": call.arguments}}
            for n, call in enumerate(completion.tool_calls)]


def _usage(completion: Completion) -> dict[str, int]:
    tokens_in, tokens_out = completion.usage.tokens_in, completion.usage.tokens_out
    return {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out}


def chat_response(completion: Completion, model: str, number: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": completion.text or None}
    if completion.tool_calls:
        message["tool_calls"] = _tool_calls(completion)
    return {
        "id": f"chatcmpl-mlab-{number}", "object": "chat.completion",
        "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if completion.tool_calls else "stop"}],
        "usage": _usage(completion),
    }


def chat_stream(completion: Completion, model: str, number: int) -> bytes:
    """The whole answer as server-sent events: one chunk with the message, one with the
    finish reason and usage, then [DONE]."""
    head = {"id": f"chatcmpl-mlab-{number}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}
    delta: dict[str, Any] = {"role": "assistant", "content": completion.text}
    if completion.tool_calls:
        delta["tool_calls"] = [{"index": n, **call}
                               for n, call in enumerate(_tool_calls(completion))]
    finish = "tool_calls" if completion.tool_calls else "stop"
    chunks = [
        {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
         "usage": _usage(completion)},
    ]
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    return ("".join(events) + "data: [DONE]\n\n").encode()


def chat_error(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": code}}


def models_response(model: str) -> dict[str, Any]:
    return {"object": "list",
            "data": [{"id": model, "object": "model", "created": 0, "owned_by": "pytest-mlab"}]}
