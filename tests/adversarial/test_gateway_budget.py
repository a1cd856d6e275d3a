"""An external agent cannot spend past its trial's LLM budget through the gateway.

A hostile agent once asked for max_tokens=10,000,000 in a trial with
--mlab-max-tokens=2000; the call was answered and the trial spent 10,000,040 tokens,
since the budget was checked only before a call. Here the gateway is called as the
agent calls it (its Unix socket, the harness's side of the shim) over every wire format,
and a whole trial runs the attack from its sandbox. The model is a loopback server that
writes until it is cut off (``Reply.fills``), or that ignores the cut.
"""

from __future__ import annotations

import http.client
import json
import shlex
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_server import UNBOUNDED, LLMServer, Reply

from pytest_mlab.llm.client import LLMClient, LLMConfig, import_litellm
from pytest_mlab.llm.errors import BudgetExceeded
from pytest_mlab.llm.gateway import Gateway

import_litellm()  # once per process, before a pytester run: see tests/test_llm_agents.py

BUDGET = 2000
ROUTES = ("openai", "openai-stream", "anthropic", "anthropic-stream")
FILLS = Reply(content="print('hello')", fills=True)


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: Path) -> None:
        super().__init__("localhost", timeout=60)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(self.path))


@pytest.fixture
def gateway(server: LLMServer, tmp_path: Path) -> Iterator[Gateway]:
    """A gateway over a client with a token budget of BUDGET, on the loopback model."""
    config = LLMConfig(main="openai/x", fast="openai/x", edit="openai/x", api_base=server.url,
                       retries=0, timeout=20, max_tokens=BUDGET)
    served = Gateway(LLMClient(config, label="budget"), log=tmp_path / "calls.jsonl").start()
    yield served
    served.close()


def call(gateway: Gateway, route: str, content: str, **fields: Any) -> tuple[int, Any]:
    """The status of one call as an agent makes it, and its JSON body, or for a stream
    the JSON of its events."""
    body = {"model": "anything", "messages": [{"role": "user", "content": content}],
            "stream": route.endswith("-stream"), **fields}
    path = "/v1/messages" if route.startswith("anthropic") else "/v1/chat/completions"
    connection = _UnixConnection(gateway.socket_path)
    try:
        connection.request("POST", path, json.dumps(body), {
            "Authorization": f"Bearer {gateway.token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        status, raw = response.status, response.read().decode()
    finally:
        connection.close()
    if raw.startswith(("data: ", "event: ")):
        return status, [json.loads(line[6:]) for line in raw.splitlines()
                        if line.startswith("data: ") and line != "data: [DONE]"]
    return status, json.loads(raw)


def reported(route: str, answer: Any) -> tuple[int, int]:
    """The (prompt, completion) tokens the agent was told the call used."""
    if route == "openai":
        return answer["usage"]["prompt_tokens"], answer["usage"]["completion_tokens"]
    if route == "openai-stream":
        (usage,) = [event["usage"] for event in answer if event.get("usage")]
        return usage["prompt_tokens"], usage["completion_tokens"]
    if route == "anthropic":
        return answer["usage"]["input_tokens"], answer["usage"]["output_tokens"]
    (start,) = [e for e in answer if e["type"] == "message_start"]
    (delta,) = [e for e in answer if e["type"] == "message_delta"]
    return start["message"]["usage"]["input_tokens"], delta["usage"]["output_tokens"]


def refused_for_budget(route: str, status: int, answer: Any) -> str:
    """The refusal's sentence, once it is checked to be a budget refusal in the route's
    own error format."""
    assert status == 429, answer
    if route.startswith("anthropic"):
        assert answer["type"] == "error" and answer["error"]["type"] == "budget_exceeded"
    else:
        assert answer["error"]["type"] == "budget_exceeded"
    sentence: str = answer["error"]["message"]
    return sentence


def spent(gateway: Gateway) -> int:
    return gateway.llm.usage.tokens_in + gateway.llm.usage.tokens_out


def sent_bound(request: dict[str, Any]) -> int:
    bound: int = request.get("max_completion_tokens") or request["max_tokens"]
    return bound


@pytest.mark.parametrize("route", ROUTES)
def test_ten_million_tokens_asked_in_a_budget_of_2000_reach_the_model_as_what_is_left(
    gateway: Gateway, server: LLMServer, route: str
) -> None:
    server.script.replies.append(FILLS)
    status, answer = call(gateway, route, "hello", max_tokens=10_000_000)
    assert status == 200, answer
    (request,) = server.requests
    assert 0 < request["max_tokens"] < BUDGET
    # What the model wrote is counted as it said, and told to the agent as counted.
    usage = gateway.llm.usage
    assert usage.tokens_out == request["max_tokens"]
    assert reported(route, answer) == (usage.tokens_in, usage.tokens_out)
    assert spent(gateway) <= BUDGET


def test_max_completion_tokens_is_bounded_as_well(gateway: Gateway, server: LLMServer) -> None:
    server.script.replies.append(FILLS)
    status, _ = call(gateway, "openai", "hello", max_completion_tokens=10_000_000)
    assert status == 200
    (request,) = server.requests
    assert 0 < sent_bound(request) < BUDGET and spent(gateway) <= BUDGET


@pytest.mark.parametrize("route", ["openai", "anthropic-stream"])
def test_a_call_that_bounds_nothing_is_given_what_is_left(
    gateway: Gateway, server: LLMServer, route: str
) -> None:
    server.script.replies.append(FILLS)  # unbounded, it would write UNBOUNDED tokens
    status, _ = call(gateway, route, "hello")
    assert status == 200
    (request,) = server.requests
    assert 0 < request["max_tokens"] < BUDGET < UNBOUNDED
    assert spent(gateway) <= BUDGET


@pytest.mark.parametrize("route", ROUTES)
def test_a_prompt_over_what_is_left_is_refused_before_it_reaches_the_model(
    gateway: Gateway, server: LLMServer, route: str
) -> None:
    server.script.replies.append(FILLS)
    assert call(gateway, route, "hello", max_tokens=1500)[0] == 200
    left = BUDGET - spent(gateway)
    assert 0 < left < 800
    status, answer = call(gateway, route, "word " * 800, max_tokens=1)
    sentence = refused_for_budget(route, status, answer)
    assert "leaves no room" in sentence and "LLM budget is spent" in sentence
    assert len(server.requests) == 1  # the model never saw it
    assert isinstance(gateway.ended, BudgetExceeded)
    assert gateway.over_file.exists()  # the shim stops the agent
    assert spent(gateway) == BUDGET - left  # and nothing was counted for it


@pytest.mark.parametrize("route", ROUTES)
def test_a_model_that_ignores_the_bound_is_counted_in_full_and_ends_the_budget(
    gateway: Gateway, server: LLMServer, route: str
) -> None:
    # One token past what it was allowed, and the prompt under-reported: the total is
    # still under the budget on paper, but the provider cannot be trusted with the rest.
    server.script.respond = lambda request: Reply(
        content="ok", usage=(1, sent_bound(request) + 1))
    status, answer = call(gateway, route, "hello", max_tokens=10_000_000)
    assert status == 200
    (request,) = server.requests
    assert gateway.llm.usage.tokens_out == sent_bound(request) + 1
    assert reported(route, answer) == (1, sent_bound(request) + 1)
    assert spent(gateway) < BUDGET
    assert gateway.log is not None
    (logged,) = [json.loads(line) for line in gateway.log.read_text().splitlines()]
    assert logged["tokens_out"] == sent_bound(request) + 1
    status, answer = call(gateway, route, "hello", max_tokens=10)
    assert "past the" in refused_for_budget(route, status, answer)
    assert len(server.requests) == 1


HOSTILE = """\
import json, os, urllib.error, urllib.request
statuses = []
for _ in range(5):
    body = {"model": "x", "max_tokens": 10_000_000,
            "messages": [{"role": "user", "content": "write forever"}]}
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
                 "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            statuses.append(response.status)
    except urllib.error.HTTPError as exc:
        statuses.append(exc.code)
        break
print("STATUSES", json.dumps(statuses), flush=True)
"""


def test_a_hostile_agent_in_its_sandbox_spends_no_more_than_the_trial_budget(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]], server: LLMServer, kind_args: list[str],
) -> None:
    recorded("guess")
    venv = pytester.path / "agent-venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "bin" / "hostile.py").write_text(HOSTILE)
    server.script.respond = lambda request: FILLS
    command = f"python {shlex.quote(str(venv / 'bin' / 'hostile.py'))}"
    pytester.runpytest(
        "tasks", "--agent=command", "--llm=openai/x", f"--mlab-llm-api-base={server.url}",
        f"--mlab-agent-cmd={command}", f"--mlab-agent-venv={venv}", "--mlab-llm-retries=0",
        f"--mlab-max-tokens={BUDGET}", *kind_args, *mlab_args)
    (record,) = read_results()
    assert record["ended_by"] == "LLM budget"
    assert 0 < record["tokens_in"] + record["tokens_out"] <= BUDGET
    assert len(server.requests) == 1 and server.requests[0]["max_tokens"] < BUDGET
    (step, *_) = [json.loads(line) for line in Path(record["trace"]).read_text().splitlines()]
    assert 'STATUSES [200, 429]' in step["observation"], step["observation"]
