"""The LLM client against a loopback OpenAI-compatible server: retries, faults, keys,
budgets, and the record/replay cache. No provider is ever called."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_server import LLMServer, Reply, say

from pytest_mlab.llm import (
    BudgetExceeded,
    LLMClient,
    LLMConfig,
    LLMError,
    MissingKey,
    ReplayMiss,
    SamplingChoice,
)
from pytest_mlab.llm.cache import ReplyCache
from pytest_mlab.llm.ledger import CostLedger
from pytest_mlab.llm.sampling import paper_sampling

HELLO = [{"role": "user", "content": "hello"}]


def client(server: LLMServer, **changes: object) -> LLMClient:
    options: dict[str, object] = {"api_base": server.url, "backoff": 0.01, "timeout": 1.0}
    options.update(changes)
    config = LLMConfig(main="gpt-4", fast="gpt-4", edit="gpt-4", **options)  # type: ignore[arg-type]
    return LLMClient(config, label="guess/react/gpt-4 trial 1")


def test_three_rate_limits_then_an_answer(server: LLMServer) -> None:
    server.script.replies += [Reply(status=429)] * 3 + [say("fine")]
    llm = client(server)
    completion = llm.complete(HELLO)
    assert completion.text == "fine"
    assert len(server.requests) == 4
    # The server counted the tokens; litellm's table prices gpt-4 at $30/$60 per million.
    assert completion.usage.tokens_in > 0 and completion.usage.tokens_out > 0
    expected = completion.usage.tokens_in * 30e-6 + completion.usage.tokens_out * 60e-6
    assert completion.usage.cost == pytest.approx(expected)
    assert llm.usage.calls == 1 and llm.usage.cost == completion.usage.cost


@pytest.mark.parametrize(("fault", "error_class"), [
    (Reply(status=500), "InternalServerError"),
    (Reply(status=503), "ServiceUnavailableError"),
    (Reply(malformed=True), "InternalServerError"),
    (Reply(delay=5.0), "Timeout"),
])
def test_a_provider_that_keeps_failing_is_an_error_after_bounded_retries(
    server: LLMServer, fault: Reply, error_class: str
) -> None:
    server.script.replies += [fault] * 10
    with pytest.raises(LLMError) as caught:
        client(server, retries=2).complete(HELLO)
    if fault.delay:
        # litellm classes some read timeouts ("OpenAIException - timed out", seen under
        # load) as server errors; both are retried alike.
        assert caught.value.error_class in (error_class, "InternalServerError"), str(caught.value)
        assert "timed out" in str(caught.value)
    else:
        assert caught.value.error_class == error_class, str(caught.value)
    assert len(server.requests) == 3
    message = str(caught.value)
    assert "\n" not in message and "failed 3 times" in message
    assert caught.value.error_class in message


def test_errors_that_retrying_cannot_fix_are_not_retried(server: LLMServer) -> None:
    server.script.replies += [Reply(status=400)] * 3
    with pytest.raises(LLMError) as caught:
        client(server).complete(HELLO)
    assert caught.value.error_class == "BadRequestError"
    assert len(server.requests) == 1


def test_a_missing_key_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    config = LLMConfig(main="anthropic/claude-3-opus-20240229", fast="x", edit="x")
    with pytest.raises(MissingKey, match=r"needs ANTHROPIC_API_KEY in the environment"):
        LLMClient(config, label="t").complete(HELLO)


def test_tool_calls_come_back_parsed(server: LLMServer) -> None:
    server.script.replies.append(
        Reply(content="thinking", tool_calls=(("list_files", {"dir_path": "."}),))
    )
    tools = [{"type": "function", "function": {"name": "list_files", "parameters": {
        "type": "object", "properties": {"dir_path": {"type": "string"}}}}}]
    completion = client(server).complete(HELLO, tools=tools)
    (call,) = completion.tool_calls
    assert (call.name, call.arguments) == ("list_files", '{"dir_path": "."}')
    assert server.requests[0]["tools"][0]["function"]["name"] == "list_files"


def test_budgets_end_the_trial_once_spent(server: LLMServer, tmp_path: Path) -> None:
    server.script.replies += [Reply(content="one", usage=(20, 80)), say("two")]
    ledger = CostLedger(tmp_path / "spend.log")
    llm = client(server, max_tokens=100, ledger=ledger)
    llm.complete(HELLO)
    with pytest.raises(BudgetExceeded, match=r"token budget of 100 spent \(100\)"):
        llm.complete(HELLO)
    assert len(server.requests) == 1
    assert ledger.total() == pytest.approx(llm.usage.cost) and ledger.total() > 0


def test_record_then_replay_asks_the_server_nothing(server: LLMServer, tmp_path: Path) -> None:
    server.script.replies += [say("first"), say("second"), say("other")]
    recording = client(server, cache=ReplyCache(tmp_path, "record"))
    # The same request twice gets two recorded answers, replayed in the same order.
    answers = [recording.complete(HELLO).text, recording.complete(HELLO).text,
               recording.complete([{"role": "user", "content": "other"}]).text]
    assert answers == ["first", "second", "other"]
    assert len(server.requests) == 3
    replaying = client(server, cache=ReplyCache(tmp_path, "replay"))
    replayed = [replaying.complete(HELLO).text, replaying.complete(HELLO).text,
                replaying.complete([{"role": "user", "content": "other"}]).text]
    assert replayed == answers
    assert len(server.requests) == 3
    assert replaying.usage.tokens_in == recording.usage.tokens_in
    assert replaying.usage.cost == pytest.approx(recording.usage.cost)
    replaying.step = 7
    with pytest.raises(ReplayMiss, match=r"guess/react/gpt-4 trial 1 step 7: no recorded reply"):
        replaying.complete([{"role": "user", "content": "never asked"}])
    assert len(server.requests) == 3


def test_auto_replays_what_it_has_and_records_the_rest(
    server: LLMServer, tmp_path: Path
) -> None:
    server.script.replies += [say("asked once"), say("new")]
    client(server, cache=ReplyCache(tmp_path, "auto")).complete(HELLO)
    again = client(server, cache=ReplyCache(tmp_path, "auto"))
    assert again.complete(HELLO).text == "asked once"
    assert again.complete([{"role": "user", "content": "fresh"}]).text == "new"
    assert len(server.requests) == 2


@pytest.mark.parametrize(("model", "main", "fast", "edit", "stop"), [
    ("gpt-4-0125-preview", (0.2, 500), (0.01, 500), (0.2, 4000), ["Observation:"]),
    ("openai/gpt-4o", (0.2, 500), (0.01, 500), (0.2, 4000), ["Observation:"]),
    ("anthropic/claude-3-opus-20240229", (0.5, 2000), (0.01, 2000), (0.5, 4000),
     ["\n\nHuman:", "Observation:"]),
    ("gemini/gemini-pro", (0.5, 2000), (0.01, 2000), (0.5, 4000), ["Observation:"]),
    ("openai/qwen2.5", (0.5, 2000), (0.01, 2000), (0.5, 4000), ["Observation:"]),
])
def test_the_originals_sampling_per_role_and_model_family(
    model: str, main: tuple[float, int], fast: tuple[float, int], edit: tuple[float, int],
    stop: list[str],
) -> None:
    for role, (temperature, tokens) in (("main", main), ("fast", fast), ("edit", edit)):
        fields = paper_sampling(model, role).request_fields()  # type: ignore[arg-type]
        assert fields == {"temperature": temperature, "max_tokens": tokens, "stop": stop}


def test_each_role_sends_its_own_models_sampling(server: LLMServer) -> None:
    server.script.replies += [say("a"), say("b"), say("c"), say("d")]
    config = LLMConfig(main="gpt-4", fast="openai/claude-3-haiku", edit="openai/edit-model",
                       api_base=server.url, backoff=0.01, timeout=5.0)
    llm = LLMClient(config, label="t")
    llm.complete(HELLO)
    llm.complete(HELLO, role="fast")
    llm.complete(HELLO, role="edit")
    llm.complete(HELLO, stop=["\nObservation:", "Observation:"])
    fields = [(r["model"], r["temperature"], r["max_tokens"], r["stop"]) for r in server.requests]
    assert fields == [
        ("gpt-4", 0.2, 500, ["Observation:"]),
        ("claude-3-haiku", 0.01, 2000, ["\n\nHuman:", "Observation:"]),
        ("edit-model", 0.5, 4000, ["Observation:"]),
        ("gpt-4", 0.2, 500, ["Observation:", "\nObservation:"]),
    ]


def test_sampling_is_part_of_what_the_cache_is_keyed_on(
    server: LLMServer, tmp_path: Path
) -> None:
    server.script.replies += [say("warm")]
    client(server, cache=ReplyCache(tmp_path, "record")).complete(HELLO)
    same = client(server, cache=ReplyCache(tmp_path, "replay"))
    assert same.complete(HELLO).text == "warm"
    colder = client(server, cache=ReplyCache(tmp_path, "replay"),
                    sampling=SamplingChoice(temperature={"main": 0.0}))
    with pytest.raises(ReplayMiss):
        colder.complete(HELLO)
    shorter = client(server, cache=ReplyCache(tmp_path, "replay"),
                     sampling=SamplingChoice(max_output_tokens={"main": 100}))
    with pytest.raises(ReplayMiss):
        shorter.complete(HELLO)
    assert len(server.requests) == 1
