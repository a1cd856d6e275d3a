"""A per-trial LLM gateway: an OpenAI- and Anthropic-compatible endpoint for an external
agent in the trial's sandbox, answered through the trial's own LLM client.

It listens on a Unix socket in a folder of its own, which only that trial's sandbox is
shown (a loopback shim inside relays to it, see ``gateway/shim.py``). It answers its own
endpoints to its own trial's token and nothing else; it never fetches a URL, so the only
model it can reach is the one the client was configured with. Every call is counted,
budgeted, cached or replayed by the client, whatever model name the agent asked for:
its output tokens are bounded by what the trial's budget has left, whatever it asked
for, and a call that cannot fit is refused (429, and the trial's calls end). Calls are
answered one at a time, so two at once cannot both be given what is left.
What an agent can make the harness hold is bounded: ``CONNECTIONS`` at once (each a
thread; one more is answered 503 and closed at once), each request's size and time
(``gateway/handler.py``).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import secrets
import shlex
import shutil
import socket
import socketserver
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mlab.llm.client import LLMClient
from pytest_mlab.llm.errors import BudgetExceeded, LLMError, PromptTooLong
from pytest_mlab.llm.gateway import anthropic, openai
from pytest_mlab.llm.gateway.handler import GatewayAnswer, make_handler
from pytest_mlab.llm.usage import Completion

PORT = 4141
"""Where the shim listens, on the loopback of the sandbox's own network namespace."""
SHIM = Path(__file__).with_name("shim.py")


CONNECTIONS = 8
"""Connections of one trial the gateway serves at once."""


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, handler: type[socketserver.BaseRequestHandler]) -> None:
        super().__init__(path, handler)
        self._slots = threading.BoundedSemaphore(CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            _turn_away(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A connection the agent broke or let time out is its own affair, not the log's.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def _turn_away(connection: socket.socket) -> None:
    """Answer 503 without reading the request, and without waiting on the peer."""
    body = json.dumps(openai.chat_error(
        f"The gateway serves {CONNECTIONS} connections of a trial at once; close one "
        "and try again.", "refused")).encode()
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    with contextlib.suppress(OSError):
        connection.setblocking(False)
        connection.send(head + body)


@dataclass
class Gateway:
    """One trial's gateway; ``start`` it before its sandbox runs anything, ``close`` after."""

    llm: LLMClient
    log: Path | None = None
    """Where each call is written, one JSON line: tokens, cost, model, endpoint."""
    token: str = field(default_factory=lambda: "mlab-" + secrets.token_urlsafe(32))
    ended: Exception | None = None
    """What ended the trial's LLM calls (BudgetExceeded or an LLMError), once something did."""
    calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: _Server | None = None
    directory: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="mlab-gw-")))
    """Short on purpose: a socket's path must fit in 108 bytes."""

    @property
    def socket_path(self) -> Path:
        return self.directory / "llm.sock"

    @property
    def over_file(self) -> Path:
        return self.directory / "over"

    def start(self) -> Gateway:
        shutil.copyfile(SHIM, self.directory / SHIM.name)
        self.directory.chmod(0o755)
        self._server = _Server(str(self.socket_path), make_handler(self))
        # A container's root has no right to bypass file modes; the token guards the door.
        self.socket_path.chmod(0o666)
        threading.Thread(target=self._server.serve_forever, daemon=True,
                         name="mlab-llm-gateway").start()
        return self

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        shutil.rmtree(self.directory, ignore_errors=True)

    def environment(self) -> dict[str, str]:
        """The variables an agent in the sandbox finds its model with."""
        base = f"http://127.0.0.1:{PORT}"
        return {
            "OPENAI_BASE_URL": f"{base}/v1", "OPENAI_API_BASE": f"{base}/v1",
            "OPENAI_API_KEY": self.token, "ANTHROPIC_BASE_URL": base,
            "ANTHROPIC_API_KEY": self.token, "ANTHROPIC_AUTH_TOKEN": self.token,
            "MLAB_LLM_MODEL": self.llm.config.main,
            # litellm inside the agent would fetch its price table from the internet.
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }

    def mounts(self) -> tuple[tuple[str, str], ...]:
        return ((str(self.directory), str(self.directory)),)

    def wrap(self, python: str, command: str) -> str:
        """``command`` run under the shim by ``python`` (one the sandbox has)."""
        shim = self.directory / SHIM.name
        argv = [python, "-B", str(shim), str(PORT), str(self.socket_path), str(self.over_file),
                "--", "/bin/sh", "-c", command]
        return shlex.join(argv)

    @property
    def model(self) -> str:
        return self.llm.config.main

    def authorized(self, presented: str) -> bool:
        return hmac.compare_digest(presented.encode(), self.token.encode())

    def answer(self, endpoint: str, body: dict[str, Any]) -> GatewayAnswer:
        """The answer to one authorized call of ``endpoint`` ("chat" or "messages")."""
        try:
            request = (openai.parse_chat(body) if endpoint == "chat"
                       else anthropic.parse_messages(body))
        except openai.BadRequest as exc:
            return self._error(endpoint, 400, str(exc), "invalid_request_error")
        with self._lock:  # one client, one call at a time
            try:
                completion = self.llm.complete(
                    request.messages, tools=request.tools, sampling=request.sampling,
                    via=f"gateway {endpoint}, asked for {request.model[:100]}")
            except BudgetExceeded as exc:
                return self._over(endpoint, 429, exc, f"The trial's LLM budget is spent "
                                  f"({exc}); no further calls are answered.", "budget_exceeded")
            except LLMError as exc:
                return self._over(endpoint, 502, exc, f"The trial's LLM calls failed for "
                                  f"good: {exc}", "api_error")
            except PromptTooLong as exc:
                return self._error(endpoint, 400, str(exc), "context_length_exceeded")
            self.calls += 1
            self._record(endpoint, request.model, completion)
            number = self.calls
        return _reply(endpoint, completion, request, number)

    def _over(self, endpoint: str, status: int, exc: Exception, sentence: str,
              kind: str) -> GatewayAnswer:
        if self.ended is None:
            self.ended = exc
            # Whole or not at all: the shim reads the file as soon as it appears.
            partial = self.over_file.with_suffix(".partial")
            partial.write_text(sentence + "\n", encoding="utf-8")
            partial.replace(self.over_file)
        return self._error(endpoint, status, sentence, kind)

    @staticmethod
    def _error(endpoint: str, status: int, sentence: str, kind: str) -> GatewayAnswer:
        body = (openai.chat_error(sentence, kind, kind) if endpoint != "messages"
                else anthropic.messages_error(sentence, kind))
        return GatewayAnswer(status, body)

    def _record(self, endpoint: str, asked: str, completion: Completion) -> None:
        if self.log is None:
            return
        line = {"call": self.calls, "step": self.llm.step, "endpoint": endpoint,
                "asked_for": asked, "model": completion.model,
                "tokens_in": completion.usage.tokens_in,
                "tokens_out": completion.usage.tokens_out, "cost": completion.usage.cost}
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def _reply(endpoint: str, completion: Completion, request: openai.ChatRequest,
           number: int) -> GatewayAnswer:
    if endpoint == "messages":
        if request.stream:
            return GatewayAnswer(200, stream=anthropic.messages_stream(
                completion, request.model, number))
        return GatewayAnswer(200, anthropic.messages_response(completion, request.model, number))
    if request.stream:
        return GatewayAnswer(200, stream=openai.chat_stream(completion, request.model, number))
    return GatewayAnswer(200, openai.chat_response(completion, request.model, number))


def default_python() -> str:
    """The interpreter the shim runs with when the agent brings none: the harness's own,
    which the local sandboxes and the docker skeleton image show."""
    return sys.executable
