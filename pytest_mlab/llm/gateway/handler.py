"""The HTTP side of the LLM gateway: who may call, which paths exist, and nothing else.

A call needs the trial's token (``Authorization: Bearer`` as OpenAI clients send it, or
``x-api-key`` as Anthropic's do); it may name only the gateway's own paths, never a full
URL (the gateway is no proxy), and its body is one JSON object of bounded size.

Holding a connection costs the harness a thread and what it buffers, so each request,
its headers and body, must arrive within ``REQUEST_S`` of the moment the gateway waits
for it (an idle or trickling connection is closed), and a body past ``MAX_BODY`` is
refused by its Content-Length, before any of it is read.
"""

from __future__ import annotations

import io
import json
import socket
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from pytest_mlab.llm.gateway import openai

MAX_BODY = 4 * 1024 * 1024
"""A long prompt of a few hundred thousand tokens is about a megabyte of JSON."""
REQUEST_S = 30.0
"""How long one request may take to arrive, counted from when the gateway waits for it."""
_ENDPOINTS = {"/v1/chat/completions": "chat", "/chat/completions": "chat",
              "/v1/messages": "messages", "/messages": "messages"}
_MODELS = ("/v1/models", "/models")


@dataclass
class GatewayAnswer:
    """What one request gets: a status and a JSON body, or a stream of events."""

    status: int
    body: dict[str, Any] | None = None
    stream: bytes | None = None


class Answering(Protocol):
    """What the handler asks of its gateway."""

    @property
    def model(self) -> str: ...

    def authorized(self, presented: str) -> bool: ...

    def answer(self, endpoint: str, body: dict[str, Any]) -> GatewayAnswer: ...


def _presented(headers: Any) -> str:
    auth = str(headers.get("Authorization", ""))
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return str(headers.get("x-api-key", "")).strip()


class _DeadlineReader(io.RawIOBase):
    """The connection's bytes, each read given only what is left of the request's time."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.deadline = time.monotonic() + REQUEST_S

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request took too long to arrive")
        self.connection.settimeout(left)
        return self.connection.recv_into(buffer)


class GatewayHandler(BaseHTTPRequestHandler):
    """One connection from the sandbox; ``gateway`` is set by ``make_handler``."""

    gateway: Answering
    protocol_version = "HTTP/1.1"
    server_version = "pytest-mlab-gateway"

    def setup(self) -> None:
        super().setup()
        self._reader = _DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        self._reader.deadline = time.monotonic() + REQUEST_S
        super().handle_one_request()

    def address_string(self) -> str:  # a Unix socket's peer has no address
        return "sandbox"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: dict[str, Any] | None = None,
              stream: bytes | None = None) -> None:
        payload = stream if stream is not None else json.dumps(body or {}).encode()
        self.connection.settimeout(REQUEST_S)  # a reader that never reads is let go too
        self.send_response(status)
        kind = "text/event-stream" if stream is not None else "application/json"
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _refused(self, status: int, sentence: str) -> None:
        self._send(status, openai.chat_error(sentence, "refused"))

    def _admitted(self) -> bool:
        if not self.gateway.authorized(_presented(self.headers)):
            self._refused(401, "This gateway answers only its own trial's token.")
            return False
        if not self.path.startswith("/"):
            self._refused(403, "The gateway is not a proxy: it answers only its own "
                               "paths, never another URL.")
            return False
        return True

    def do_GET(self) -> None:
        if not self._admitted():
            return
        if self.path.split("?")[0] in _MODELS:
            self._send(200, openai.models_response(self.gateway.model))
        else:
            self._refused(404, f"No such endpoint: {self.path[:100]}.")

    def do_POST(self) -> None:
        if not self._admitted():
            return
        endpoint = _ENDPOINTS.get(self.path.split("?")[0])
        if endpoint is None:
            self._refused(404, f"No such endpoint: {self.path[:100]}.")
            return
        length = _length(self.headers)
        if not 0 < length <= MAX_BODY:
            self.close_connection = True  # what was sent of the body is never read
            self._refused(413 if length > 0 else 411, "A call needs a JSON body of at most "
                          f"{MAX_BODY // 2**20} MiB with its Content-Length.")
            return
        try:
            raw = self.rfile.read(length)
        except OSError:  # timed out, or the peer went
            self.close_connection = True
            return
        if len(raw) < length:
            self.close_connection = True
            return
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._refused(400, "The body is not a JSON object.")
            return
        answer: GatewayAnswer = self.gateway.answer(endpoint, body)
        self._send(answer.status, answer.body, answer.stream)

    def _other(self) -> None:
        self.close_connection = True
        self._refused(405, f"The gateway does not answer {self.command} requests.")

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_CONNECT = _other


def _length(headers: Any) -> int:
    """The declared length of the body; 0 where none is declared, -1 where it is no number."""
    try:
        return int(headers.get("Content-Length") or 0)
    except ValueError:
        return -1


def make_handler(gateway: Answering) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (GatewayHandler,), {"gateway": gateway})
