"""A loopback Hugging Face Hub: repositories from a folder, answered as the Hub answers
``resolve`` requests, with this machine's Hugging Face settings pointed at it."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from original_folders import serving

REVISION = "0123456789abcdef0123456789abcdef01234567"
"""The commit every answer names."""


class _Hub(http.server.BaseHTTPRequestHandler):
    """resolve/REVISION/FILE, answered as the Hub answers it (commit and etag headers)."""

    root: Path
    seen: list[tuple[str, str]]

    def _file(self) -> bytes | None:
        repo, _, rest = self.path.partition("/resolve/")
        name = rest.partition("/")[2]
        path = self.root / repo.lstrip("/") / name
        self.seen.append((self.path, self.headers.get("authorization", "")))
        return path.read_bytes() if path.is_file() else None

    def _headers(self, body: bytes | None) -> bool:
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return False
        self.send_response(200)
        self.send_header("X-Repo-Commit", REVISION)
        self.send_header("ETag", f'"{hashlib.sha256(body).hexdigest()}"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return True

    def do_HEAD(self) -> None:
        self._headers(self._file())

    def do_GET(self) -> None:
        body = self._file()
        if self._headers(body):
            self.wfile.write(body or b"")

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def loopback_hub(root: Path, monkeypatch: pytest.MonkeyPatch, home: Path
                 ) -> Iterator[list[tuple[str, str]]]:
    """Serve the repositories under ``root`` (``OWNER/NAME/FILE`` for models,
    ``datasets/OWNER/NAME/FILE``, ``spaces/...``) as HF_ENDPOINT, with a token and this
    machine's caches in ``home``; yields each request's path and authorization."""
    seen: list[tuple[str, str]] = []
    with serving(type("Hub", (_Hub,), {"root": root, "seen": seen})) as url:
        monkeypatch.setenv("HF_ENDPOINT", url)
        monkeypatch.setenv("HF_TOKEN", "hf_loopback")
        monkeypatch.setenv("HF_HOME", str(home))
        for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "MLAB_OFFLINE", "HF_HUB_CACHE",
                     "HF_DATASETS_CACHE", "TRANSFORMERS_CACHE"):
            monkeypatch.delenv(name, raising=False)
        yield seen
