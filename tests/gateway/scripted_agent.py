"""A tiny external agent for the gateway tests, standard library only: it asks the model
found in OPENAI_BASE_URL for code, writes each answer to train.py and runs it, until the
model says DONE. With an argument it sends that request instead and prints the answer
(the hostile tests' probe). WIRE picks the protocol: openai (default), openai-stream,
anthropic or anthropic-stream, as the official clients speak them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request


def _post(url: str, body: dict[str, object], headers: dict[str, str]) -> bytes:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={**headers, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return bytes(response.read())


def _events(raw: bytes) -> list[dict[str, object]]:
    """The JSON payloads of a server-sent event stream."""
    lines = raw.decode().splitlines()
    return [json.loads(line[6:]) for line in lines
            if line.startswith("data: ") and line != "data: [DONE]"]


def ask(messages: list[dict[str, str]]) -> str:
    wire = os.environ.get("WIRE", "openai")
    stream = wire.endswith("-stream")
    body: dict[str, object] = {"model": "anything", "messages": messages, "temperature": 0}
    if wire.startswith("anthropic"):
        raw = _post(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages",
                    {**body, "max_tokens": 1000, "stream": stream},
                    {"x-api-key": os.environ["ANTHROPIC_API_KEY"],
                     "anthropic-version": "2023-06-01"})
        if stream:
            return "".join(str(e["delta"]["text"]) for e in _events(raw)  # type: ignore[index]
                           if e.get("type") == "content_block_delta")
        return "".join(block["text"] for block in json.loads(raw)["content"])
    raw = _post(os.environ["OPENAI_BASE_URL"] + "/chat/completions", {**body, "stream": stream},
                {"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"})
    if stream:
        return "".join(str(e["choices"][0]["delta"].get("content") or "")  # type: ignore[index]
                       for e in _events(raw))
    return str(json.loads(raw)["choices"][0]["message"]["content"])


def main() -> int:
    with open(".mlab-research-problem.md", encoding="utf-8") as file:
        problem = file.read()
    messages = [{"role": "user", "content": problem}]
    for _ in range(10):
        try:
            answer = ask(messages)
        except urllib.error.HTTPError as exc:
            print(f"the model refused: {exc.code} {exc.read().decode()}", flush=True)
            return 3
        if answer.strip() == "DONE":
            return 0
        with open("train.py", "w", encoding="utf-8") as out:
            out.write(answer)
        run = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True)
        print(f"ran train.py: exit {run.returncode}", flush=True)
        messages += [{"role": "assistant", "content": answer},
                     {"role": "user", "content": f"exit {run.returncode}\n{run.stdout}"}]
    return 0


if __name__ == "__main__":
    sys.exit(main())
