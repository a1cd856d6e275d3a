"""Recorded LLM replies on disk, so a trial can be replayed without a provider.

A reply is stored under the hash of everything that decides it (model, messages,
tools, sampling parameters) plus how many times the same request came before in
this trial, so a trial that asks the same thing twice replays both answers in order.
Each reply is its own file, written to a temporary name and renamed: workers of
``-n`` never see half a file and never need a lock.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.llm.usage import Completion

CacheMode = Literal["off", "record", "replay", "auto"]
CACHE_MODES: tuple[CacheMode, ...] = ("off", "record", "replay", "auto")


def request_digest(request: dict[str, Any]) -> str:
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ReplyCache:
    def __init__(self, directory: Path, mode: CacheMode) -> None:
        self.directory = directory
        self.mode = mode

    @property
    def reads(self) -> bool:
        return self.mode in ("replay", "auto")

    @property
    def writes(self) -> bool:
        return self.mode in ("record", "auto")

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        try:
            stored = json.loads(self._path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        return Completion.from_json(stored["reply"])

    def put(self, key: str, request: dict[str, Any], reply: Completion) -> None:
        stored = {"request": request, "reply": reply.to_json()}
        write_atomic(self._path(key), json.dumps(stored, default=str, indent=1))
