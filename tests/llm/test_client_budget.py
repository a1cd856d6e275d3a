"""The in-process client enforces a trial's budget per call, as native agents call it.

Its model is a loopback server that writes until it is cut off (``Reply.fills``), or that
ignores the cut (``Reply.usage``). A budget checked only before each call let one call
spend anything; here every call's output is bounded by what its prompt leaves.
"""

from __future__ import annotations

import pytest
from llm_server import LLMServer, Reply

from pytest_mlab.llm import BudgetExceeded, LLMClient, LLMConfig

HELLO = [{"role": "user", "content": "hello"}]
FILLS = Reply(content="ok", fills=True)
GPT4_IN, GPT4_OUT = 30e-6, 60e-6
"""litellm's table prices gpt-4 at $30 and $60 per million tokens."""


def client(server: LLMServer, max_tokens: int | None = None,
           max_cost: float | None = None) -> LLMClient:
    config = LLMConfig(main="gpt-4", fast="gpt-4", edit="gpt-4", api_base=server.url,
                       retries=0, timeout=20, max_tokens=max_tokens, max_cost=max_cost)
    return LLMClient(config, label="guess/react/gpt-4 trial 1")


def spent(llm: LLMClient) -> int:
    return llm.usage.tokens_in + llm.usage.tokens_out


def test_the_edit_roles_4000_tokens_reach_the_model_as_what_the_budget_has_left(
    server: LLMServer,
) -> None:
    server.script.replies.append(FILLS)
    llm = client(server, max_tokens=1000)
    llm.complete(HELLO, role="edit")
    (request,) = server.requests
    assert 0 < request["max_tokens"] < 1000
    assert llm.usage.tokens_out == request["max_tokens"]
    assert spent(llm) <= 1000


def test_a_prompt_that_leaves_no_room_is_refused_unsent_and_uncounted(
    server: LLMServer,
) -> None:
    server.script.replies.append(FILLS)
    llm = client(server, max_tokens=1000)
    llm.complete(HELLO, sampling={"max_tokens": 900})
    before = spent(llm)
    assert 0 < 1000 - before < 300
    with pytest.raises(BudgetExceeded, match="leaves no room for output"):
        llm.complete([{"role": "user", "content": "word " * 300}])
    assert len(server.requests) == 1 and spent(llm) == before


def test_a_reply_past_its_bound_is_counted_in_full_and_ends_the_budget(
    server: LLMServer,
) -> None:
    # One token past what the budget had left, and the prompt under-reported: still
    # under the budget on paper, but the provider cannot be trusted with the rest.
    server.script.respond = lambda request: Reply(content="ok",
                                                  usage=(1, request["max_tokens"] + 1))
    llm = client(server, max_tokens=1000)
    llm.complete(HELLO, sampling={"max_tokens": 10_000_000})
    (request,) = server.requests
    assert 0 < request["max_tokens"] < 1000
    assert llm.usage.tokens_out == request["max_tokens"] + 1 and spent(llm) < 1000
    with pytest.raises(BudgetExceeded, match=r"a reply used \d+ output tokens, past the"):
        llm.complete(HELLO, sampling={"max_tokens": 1})
    assert len(server.requests) == 1


def test_a_reply_past_the_agents_own_bound_but_within_the_budget_is_only_counted(
    server: LLMServer,
) -> None:
    server.script.respond = lambda request: Reply(content="ok",
                                                  usage=(1, request["max_tokens"] + 1))
    llm = client(server, max_tokens=10_000)
    llm.complete(HELLO, sampling={"max_tokens": 100})
    llm.complete(HELLO, sampling={"max_tokens": 100})
    assert [r["max_tokens"] for r in server.requests] == [100, 100]
    assert llm.usage.tokens_out == 202


def test_a_cost_budget_bounds_the_output_of_a_priced_model(server: LLMServer) -> None:
    server.script.replies.append(FILLS)
    llm = client(server, max_cost=0.01)
    llm.complete(HELLO)
    (request,) = server.requests
    # The paper's 500 tokens for a GPT model would cost $0.03 at worst.
    assert 0 < request["max_tokens"] < 0.01 / GPT4_OUT < 500
    assert llm.usage.cost <= 0.01
    with pytest.raises(BudgetExceeded):
        for _ in range(100):
            server.script.replies.append(FILLS)
            llm.complete(HELLO)
    assert llm.usage.cost <= 0.01 + 20 * GPT4_IN  # the prompt is estimated, not known


def test_without_a_budget_the_request_is_sent_as_asked(server: LLMServer) -> None:
    server.script.replies.append(Reply(content="ok"))
    client(server).complete(HELLO, sampling={"max_tokens": 10_000_000})
    assert server.requests[0]["max_tokens"] == 10_000_000
