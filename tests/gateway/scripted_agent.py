"""A tiny external agent for the gateway tests, standard library only: it asks the model
found in OPENAI_BASE_URL for code, writes each answer to train.py and runs it, until the
model says DONE. With an argument it sends that request instead and prints the answer
(the hostile tests' probe)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request


def ask(messages: list[dict[str, str]]) -> str:
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "anything", "messages": messages,
                         "temperature": 0}).encode(),
        headers={"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}",
                 "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        body = json.loads(response.read())
    return str(body["choices"][0]["message"]["content"])


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
