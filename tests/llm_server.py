"""A loopback OpenAI-compatible chat server with scripted replies and injected faults.

Tests script what it answers (``Reply``), point the plugin at it with
``--mlab-llm-api-base``, and count the requests it saw. Like a provider, it cuts an answer
before the first of the request's stop sequences. It listens on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer: text, tool calls, or a fault."""

    content: str | None = None
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    """(function name, arguments) pairs, answered as native tool calls."""
    status: int = 200
    """429, 500, ...: answered with an error body instead."""
    delay: float = 0.0
    """Seconds to wait first: longer than the client's timeout makes a timeout."""
    malformed: bool = False
    """A 200 whose body is not JSON."""
    usage: tuple[int, int] | None = None
    """(prompt, completion) tokens reported instead of the ones counted: a provider that
    says it spent more than it was allowed."""
    fills: bool = False
    """Report as many completion tokens as the request allows (its max_tokens or
    max_completion_tokens; UNBOUNDED without either), as a model that writes until it is
    cut off."""


UNBOUNDED = 10_000_000
"""What a filling reply reports when the request bounds nothing."""


def say(text: str) -> Reply:
    return Reply(content=text)


@dataclass
class ScriptedLLM:
    replies: list[Reply] = field(default_factory=list)
    respond: Callable[[dict[str, Any]], Reply] | None = None
    """Used when the script is exhausted; without it the server answers 500."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.replies:
                return self.replies.pop(0)
        if self.respond is not None:
            return self.respond(request)
        return Reply(status=500, content="the scripted replies are used up")


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _stopped(content: str | None, stop: list[str] | str | None) -> str | None:
    """The content cut before its first stop sequence, as a provider cuts it."""
    if content is None or not stop:
        return content
    cuts = [content.find(s) for s in ([stop] if isinstance(stop, str) else stop)]
    return content[:min((c for c in cuts if c >= 0), default=len(content))]


def _body(reply: Reply, request: dict[str, Any], number: int) -> dict[str, Any]:
    prompt = json.dumps(request.get("messages", []))
    content = _stopped(reply.content, request.get("stop"))
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{number}_{n}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(args)}}
            for n, (name, args) in enumerate(reply.tool_calls)
        ]
    completion = (content or "") + json.dumps(message.get("tool_calls", []))
    prompt_tokens, completion_tokens = _tokens(prompt), _tokens(completion)
    if reply.fills:
        completion_tokens = int(request.get("max_completion_tokens")
                                or request.get("max_tokens") or UNBOUNDED)
    if reply.usage is not None:
        prompt_tokens, completion_tokens = reply.usage
    return {
        "id": f"chatcmpl-{number}", "object": "chat.completion", "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def _handler(script: ScriptedLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            request = json.loads(self.rfile.read(length) or b"{}")
            reply = script.next_reply(request)
            if reply.delay:
                time.sleep(reply.delay)
            if reply.malformed:
                payload = b"{this is not json"
            elif reply.status != 200:
                error = {"message": reply.content or f"injected {reply.status}",
                         "type": "injected", "code": reply.status}
                payload = json.dumps({"error": error}).encode()
            else:
                payload = json.dumps(_body(reply, request, len(script.requests))).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a timeout test)

    return Handler


@dataclass
class LLMServer:
    script: ScriptedLLM
    url: str
    """The api base, e.g. http://127.0.0.1:PORT/v1."""

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.script.requests


def serve(script: ScriptedLLM) -> Iterator[LLMServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield LLMServer(script, f"http://127.0.0.1:{server.server_address[1]}/v1")
    finally:
        server.shutdown()
        server.server_close()
