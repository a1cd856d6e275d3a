"""Run in the sandbox by the hostile test: tries to use the gateway for what it must
refuse, and prints what each try got, one JSON object."""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request


def raw(request: str) -> str:
    """The status line the gateway answers ``request`` with."""
    with socket.create_connection(("127.0.0.1", 4141), timeout=10) as s:
        s.sendall(request.encode())
        return s.recv(200).decode(errors="replace").split("\r\n")[0]


def main() -> None:
    token = os.environ["OPENAI_API_KEY"]
    body = '{"model": "x", "messages": [{"role": "user", "content": "hi"}]}'
    post = ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}")
    seen = {
        "other_token": raw(post.replace("TOKEN", "mlab-someone-elses-token")),
        "no_token": raw(post.replace("Authorization: Bearer TOKEN\r\n", "")),
        "proxy_url": raw(f"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n"
                         f"Authorization: Bearer {token}\r\n\r\n"),
        "connect": raw(f"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"
                       f"Authorization: Bearer {token}\r\n\r\n"),
        "other_path": raw(f"GET /v1/files HTTP/1.1\r\nHost: x\r\n"
                          f"Authorization: Bearer {token}\r\n\r\n"),
        "harness_key_visible": any("sk-harness-secret" in v for v in os.environ.values()),
        "token_prefix": token[:5],
    }
    try:
        urllib.request.urlopen("http://1.1.1.1/", timeout=5)
        seen["network"] = "reached"
    except (urllib.error.URLError, OSError) as exc:
        seen["network"] = f"refused: {type(exc).__name__}"
    print("PROBE " + json.dumps(seen), flush=True)


if __name__ == "__main__":
    main()
