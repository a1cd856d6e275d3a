"""Each model call of a trial, whole, as one JSON line beside its trace.

A line holds what the run browser shows of a call: the step, role, model, every message
sent, the reply's text and tool calls, tokens, cost, seconds, whether the reply cache
answered it, and the error where it failed. Each line is appended with one open of its
own, so an interrupted trial keeps every call written before it. ``step`` is each line's
first key, so a reader can group calls by step from a line's first bytes alone.

Credentials never reach it: the client passes the request's model, messages and tool
names, never the keyword arguments that carry keys and headers. A prompt could still
quote one (an agent that printed its environment), so the values of key-like variables
in the harness's environment are written as ``[redacted NAME]``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mlab.llm.usage import Completion

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_SHORTEST_SECRET = 8
"""Shorter values ("none", "1") are settings, and replacing them would garble the text."""


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """(name, value) of each key-like variable worth redacting, longest value first."""
    found = {(name, value) for name, value in (environ or os.environ).items()
             if _SECRET_NAME.search(name) and len(value) >= _SHORTEST_SECRET}
    return tuple(sorted(found, key=lambda pair: -len(pair[1])))


def _tool_names(tools: Sequence[Mapping[str, Any]] | None) -> list[str]:
    names = []
    for tool in tools or ():
        function = tool.get("function")
        names.append(str(function.get("name") if isinstance(function, Mapping)
                         else tool.get("name", "")))
    return names


@dataclass(frozen=True)
class CallFacts:
    """What one call asked: where it came from and what was sent."""

    step: int
    role: str
    model: str
    messages: Sequence[Any]
    tools: Sequence[Mapping[str, Any]] | None = None
    via: str | None = None
    """Who asked, where not the agent's own code: an external agent's gateway endpoint."""


@dataclass
class CallLog:
    """The calls of one trial, appended to ``path``; writing never fails the trial."""

    path: Path
    calls: int = 0
    _secrets: tuple[tuple[str, str], ...] = field(default_factory=secret_values)
    _warned: bool = False

    @classmethod
    def fresh(cls, path: Path) -> CallLog:
        """A log that starts empty: a trial run again from its start logs its calls anew."""
        with contextlib.suppress(OSError):  # the first write warns, if it fails too
            path.unlink(missing_ok=True)
        return cls(path)

    def record(self, facts: CallFacts, *, completion: Completion | None, seconds: float,
               cached: bool = False, error: str | None = None) -> None:
        self.calls += 1
        usage = completion.usage if completion is not None else None
        line = {
            "step": facts.step, "call": self.calls, "role": facts.role, "model": facts.model,
            "answered_by": completion.model if completion is not None else None,
            "via": facts.via, "time": time.time(), "seconds": round(seconds, 3),
            "cached": cached, "error": error,
            "tokens_in": usage.tokens_in if usage else 0,
            "tokens_out": usage.tokens_out if usage else 0,
            "cost": usage.cost if usage else 0.0,
            "tools": _tool_names(facts.tools), "messages": list(facts.messages),
            "reply": None if completion is None else {
                "text": completion.text,
                "tool_calls": [{"name": c.name, "arguments": c.arguments, "id": c.id}
                               for c in completion.tool_calls]},
        }
        try:
            text = self._redacted(json.dumps(line, default=str))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(text + "\n")
        except (OSError, TypeError, ValueError) as exc:
            if not self._warned:
                self._warned = True
                warnings.warn(f"the LLM call log {self.path} cannot be written ({exc}); "
                              "the trial goes on, its calls unlogged", RuntimeWarning,
                              stacklevel=2)

    def _redacted(self, text: str) -> str:
        for name, value in self._secrets:
            for form in {value, json.dumps(value)[1:-1]}:
                if form in text:
                    text = text.replace(form, f"[redacted {name}]")
        return text
