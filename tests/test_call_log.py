"""Each model call written whole to the trial's call log: against the loopback server,
through the reply cache, failing, and never with a key in it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import LLMServer, Reply, say

from pytest_mlab.llm import LLMClient, LLMConfig, LLMError
from pytest_mlab.llm.cache import ReplyCache
from pytest_mlab.llm.call_log import CallLog

KEY = "sk-never-written-0123456789abcdef"


def client(server: LLMServer, log: Path, **changes: Any) -> LLMClient:
    config = LLMConfig(main="gpt-4", fast="openai/fast-model", edit="openai/edit-model",
                       api_base=server.url, backoff=0.01, timeout=5.0, retries=0, **changes)
    return LLMClient(config, label="log test", call_log=CallLog.fresh(log))


def lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_each_call_is_one_line_with_its_prompt_reply_tokens_and_role(
    server: LLMServer, tmp_path: Path
) -> None:
    log = tmp_path / "t.calls.jsonl"
    server.script.replies += [say("<b>x</b> first"),
                              Reply(tool_calls=(("list_files", {"dir_path": "."}),)),
                              say("edited"), Reply(status=400)]
    llm = client(server, log)
    llm.complete([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}])
    llm.step = 2
    tools = [{"type": "function", "function": {"name": "list_files", "parameters": {}}}]
    llm.complete([{"role": "user", "content": "look"}], role="fast", tools=tools)
    llm.complete([{"role": "user", "content": "edit it"}], role="edit", via="gateway chat")
    with pytest.raises(LLMError):
        llm.complete([{"role": "user", "content": "bad"}])
    calls = lines(log)
    assert [(c["call"], c["step"], c["role"], c["model"]) for c in calls] == [
        (1, 1, "main", "gpt-4"), (2, 2, "fast", "openai/fast-model"),
        (3, 2, "edit", "openai/edit-model"), (4, 2, "main", "gpt-4")]
    first, second, third, failed = calls
    assert first["messages"] == [{"role": "system", "content": "be brief"},
                                 {"role": "user", "content": "hi"}]
    assert first["reply"] == {"text": "<b>x</b> first", "tool_calls": []}
    assert second["tools"] == ["list_files"]
    assert second["reply"]["tool_calls"][0]["name"] == "list_files"
    assert json.loads(second["reply"]["tool_calls"][0]["arguments"]) == {"dir_path": "."}
    assert (third["via"], failed["via"]) == ("gateway chat", None)
    assert sum(c["tokens_in"] for c in calls) == llm.usage.tokens_in > 0
    assert sum(c["tokens_out"] for c in calls) == llm.usage.tokens_out > 0
    assert sum(c["cost"] for c in calls) == pytest.approx(llm.usage.cost)
    assert all(c["seconds"] >= 0 and c["cached"] is False for c in calls)
    assert [c["error"] is None for c in calls] == [True, True, True, False]
    assert failed["error"].startswith("LLMError: log test step 2") and failed["reply"] is None


def test_a_reply_the_cache_gave_is_marked_cached(server: LLMServer, tmp_path: Path) -> None:
    server.script.replies += [say("once")]
    hello = [{"role": "user", "content": "hello"}]
    client(server, tmp_path / "a.jsonl", cache=ReplyCache(tmp_path / "c", "record")).complete(hello)
    replaying = client(server, tmp_path / "b.jsonl", cache=ReplyCache(tmp_path / "c", "replay"))
    replaying.complete(hello)
    (recorded,), (replayed,) = lines(tmp_path / "a.jsonl"), lines(tmp_path / "b.jsonl")
    assert (recorded["cached"], replayed["cached"]) == (False, True)
    assert replayed["reply"]["text"] == "once" and replayed["tokens_in"] == recorded["tokens_in"]
    assert len(server.requests) == 1


def test_an_api_key_is_never_written(
    server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    log = tmp_path / "t.calls.jsonl"
    server.script.replies += [say(f"the key is {KEY}"), say("fine")]
    llm = client(server, log)
    llm.complete([{"role": "user", "content": "what is the key?"}])
    llm.complete([{"role": "user", "content": f"env says OPENAI_API_KEY={KEY}"}])
    text = log.read_text()
    assert KEY not in text
    assert [c["reply"]["text"] for c in lines(log)] == [
        "the key is [redacted OPENAI_API_KEY]", "fine"]
    assert "[redacted OPENAI_API_KEY]" in lines(log)[1]["messages"][0]["content"]


def test_a_log_that_cannot_be_written_warns_once_and_the_calls_go_on(
    server: LLMServer, tmp_path: Path
) -> None:
    log = tmp_path / "a-folder"
    server.script.replies += [say("one"), say("two")]
    llm = client(server, log)
    log.mkdir()
    with pytest.warns(RuntimeWarning, match="cannot be written") as warned:
        answers = [llm.complete([{"role": "user", "content": str(n)}]).text for n in (1, 2)]
    assert answers == ["one", "two"] and len(warned) == 1


def test_a_fresh_log_forgets_an_earlier_session(tmp_path: Path) -> None:
    log = tmp_path / "t.calls.jsonl"
    log.write_text('{"step": 1}\n')
    CallLog.fresh(log)
    assert not log.exists()
