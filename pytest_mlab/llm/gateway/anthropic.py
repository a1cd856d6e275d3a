"""The Anthropic messages wire format of the LLM gateway, translated to and from the
chat-completions form the trial's client takes (litellm sends it on in the provider's own).

Text, tool use and tool results are translated; images are refused in one sentence.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_mlab.llm.gateway.openai import BadRequest, ChatRequest, check_token_fields
from pytest_mlab.llm.usage import Completion

_SAMPLING = {"temperature": "temperature", "top_p": "top_p", "max_tokens": "max_tokens",
             "stop_sequences": "stop"}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content
                       if isinstance(block, dict) and block.get("type") == "text")
    raise BadRequest("message content must be text or a list of content blocks")


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise BadRequest("message content must be text or a list of content blocks")
    return [block for block in content if isinstance(block, dict)]


def _assistant(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant",
                               "content": _text(blocks) or None}
    calls = [{"id": b.get("id", ""), "type": "function",
              "function": {"name": b.get("name", ""), "arguments": json.dumps(b.get("input", {}))}}
             for b in blocks if b.get("type") == "tool_use"]
    if calls:
        message["tool_calls"] = calls
    return message


def _user(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if any(b.get("type") == "image" for b in blocks):
        raise BadRequest("the gateway does not pass images on")
    messages: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": b.get("tool_use_id", ""),
         "content": _text(b.get("content", ""))}
        for b in blocks if b.get("type") == "tool_result"
    ]
    text = _text(blocks)
    if text:
        messages.append({"role": "user", "content": text})
    return messages


def parse_messages(body: dict[str, Any]) -> ChatRequest:
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise BadRequest("a messages request needs a non-empty list of messages")
    messages: list[dict[str, Any]] = []
    if body.get("system"):
        messages.append({"role": "system", "content": _text(body["system"])})
    for message in raw:
        if not isinstance(message, dict):
            raise BadRequest("each message must be an object with a role and content")
        blocks = _blocks(message.get("content", ""))
        if message.get("role") == "assistant":
            messages.append(_assistant(blocks))
        else:
            messages += _user(blocks)
    tools = [{"type": "function", "function": {
        "name": tool.get("name", ""), "description": tool.get("description", ""),
        "parameters": tool.get("input_schema", {"type": "object"})}}
        for tool in body.get("tools") or () if isinstance(tool, dict)]
    sampling = check_token_fields({ours: body[theirs] for theirs, ours in _SAMPLING.items()
                                   if body.get(theirs) is not None})
    return ChatRequest(messages, tools or None, sampling, bool(body.get("stream")),
                       str(body.get("model") or "mlab"))


def _content(completion: Completion) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    if completion.text:
        content.append({"type": "text", "text": completion.text})
    for n, call in enumerate(completion.tool_calls):
        try:
            arguments = json.loads(call.arguments or "{}")
        except json.JSONDecodeError:
            arguments = {"_unparsed": call.arguments}
        content.append({"type": "tool_use", "id": call.id or f"toolu_{n}", "name": call.name,
                        "input": arguments})
    return content


def messages_response(completion: Completion, model: str, number: int) -> dict[str, Any]:
    return {
        "id": f"msg_mlab_{number}", "type": "message", "role": "assistant", "model": model,
        "content": _content(completion),
        "stop_reason": "tool_use" if completion.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": completion.usage.tokens_in,
                  "output_tokens": completion.usage.tokens_out},
    }


def messages_stream(completion: Completion, model: str, number: int) -> bytes:
    """The whole answer as Anthropic's stream of events, one block at a time."""
    whole = messages_response(completion, model, number)
    start = {**whole, "content": [], "stop_reason": None,
             "usage": {"input_tokens": completion.usage.tokens_in, "output_tokens": 0}}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"message": start})]
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            opened: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [("content_block_start", {"index": index, "content_block": opened}),
                   ("content_block_delta", {"index": index, "delta": delta}),
                   ("content_block_stop", {"index": index})]
    events += [("message_delta", {"delta": {"stop_reason": whole["stop_reason"],
                                            "stop_sequence": None},
                                  "usage": {"output_tokens": completion.usage.tokens_out}}),
               ("message_stop", {})]
    return "".join(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"
                   for name, data in events).encode()


def messages_error(message: str, kind: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
