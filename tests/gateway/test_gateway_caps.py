"""What an agent can make the harness hold through its trial's LLM gateway is bounded.

Tried against the real gateway (its Unix socket, the harness's side of the shim): more
connections than it serves, a body declared far past the limit, many bodies held one
byte short of complete, and connections that trickle or say nothing. Costs are compared
before and during the attack, in the test's own process, where the gateway's threads run.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from pytest_mlab.llm.client import LLMClient
from pytest_mlab.llm.gateway import CONNECTIONS, Gateway
from pytest_mlab.llm.gateway import handler as gateway_handler
from pytest_mlab.llm.gateway.handler import MAX_BODY

MIB = 1 << 20


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    # The caps act before a call reaches the model: asking for the model's name is all
    # a request here needs of the client.
    llm = cast(LLMClient, SimpleNamespace(config=SimpleNamespace(main="test-model")))
    served = Gateway(llm).start()
    yield served
    served.close()


def _connect(gateway: Gateway) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(str(gateway.socket_path))  # blocking: waits while the backlog is full
    conn.settimeout(60)
    return conn


def _reply(conn: socket.socket) -> bytes:
    """Everything the gateway sends until it closes the connection."""
    chunks = []
    with contextlib.suppress(ConnectionResetError):
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _status(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else 0


def _models(gateway: Gateway, conn: socket.socket | None = None) -> int:
    """The status of a GET /v1/models, on ``conn`` or a fresh connection."""
    conn = conn or _connect(gateway)
    with conn:
        conn.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     b"Authorization: Bearer " + gateway.token.encode() + b"\r\n\r\n")
        return _status(_reply(conn))


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def _post_head(gateway: Gateway, length: int) -> bytes:
    return (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n"
            f"Authorization: Bearer {gateway.token}\r\n\r\n").encode()


def test_connections_past_the_cap_are_turned_away_and_their_slots_come_back(
    gateway: Gateway
) -> None:
    threads = threading.active_count()
    held = [_connect(gateway) for _ in range(CONNECTIONS)]
    extra = [_connect(gateway) for _ in range(10)]
    try:
        replies = [_reply(conn) for conn in extra]
        assert [_status(reply) for reply in replies] == [503] * 10
        assert f"serves {CONNECTIONS} connections".encode() in replies[0]
        assert threading.active_count() - threads <= CONNECTIONS
        # The held ones were served, not refused: each answers a call.
        assert [_models(gateway, conn) for conn in held] == [200] * CONNECTIONS
    finally:
        for conn in held + extra:
            conn.close()
    # Their slots are free again once they closed.
    for _ in range(200):
        if _models(gateway) == 200:
            break
        time.sleep(0.05)
    assert _models(gateway) == 200


def test_a_body_past_the_limit_is_refused_before_it_is_read(gateway: Gateway) -> None:
    with _connect(gateway) as conn:
        conn.sendall(_post_head(gateway, 64 * MIB))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.sendall(b"{" * MIB)  # the gateway has answered and closed meanwhile
        reply = _reply(conn)
    assert _status(reply) == 413
    assert f"at most {MAX_BODY // MIB} MiB".encode() in reply


def test_bodies_held_one_byte_short_cost_bounded_memory_and_threads(gateway: Gateway) -> None:
    # The attack that once cost the harness 776 MB and 330 threads, at today's limit.
    body = b" " * (MAX_BODY - 1)
    threads, rss = threading.active_count(), _rss()
    conns = [_connect(gateway) for _ in range(24)]
    try:
        refused = 0
        for conn in conns:
            try:
                conn.sendall(_post_head(gateway, MAX_BODY) + body)
            except (BrokenPipeError, ConnectionResetError):
                refused += 1
        time.sleep(0.5)  # let the gateway's threads take in what was sent
        grown_threads, grown_rss = threading.active_count() - threads, _rss() - rss
    finally:
        for conn in conns:
            conn.close()
    assert grown_threads <= CONNECTIONS
    assert grown_rss < 3 * CONNECTIONS * MAX_BODY, f"{grown_rss / MIB:.0f} MiB more RSS"
    assert refused >= 24 - CONNECTIONS - 2  # the rest were answered 503 and closed


@pytest.mark.parametrize("trickled", ["request line", "body"])
def test_a_trickling_or_silent_connection_is_closed(
    gateway: Gateway, monkeypatch: pytest.MonkeyPatch, trickled: str
) -> None:
    monkeypatch.setattr(gateway_handler, "REQUEST_S", 1.0)
    with _connect(gateway) as silent:
        assert _reply(silent) == b""  # closed; without the limit recv would wait forever
    data = (b"GET /v1/models HTTP/1.1\r\n" if trickled == "request line"
            else _post_head(gateway, 1000))
    closed = False
    with _connect(gateway) as slow:
        if trickled == "body":
            slow.sendall(data)
            data = b" " * 1000
        for byte in data:  # one byte every 0.1 s: 25 bytes take 2.5 REQUEST_S
            try:
                slow.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            time.sleep(0.1)
    assert closed, "the gateway kept reading a request that trickled past its time"
    assert _models(gateway) == 200
