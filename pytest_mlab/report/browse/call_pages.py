"""A trial's model calls read a page at a time, by step: each line's offset and step are
found once (a step is each line's first key, so its first bytes name it), then a page is
read by seeking. A trial may make thousands of calls with megabytes of prompt each, so no
request reads or sends the log whole: a page stops at ``MAX_CALLS`` calls or
``MAX_BYTES`` of text, and each text in it is clipped to ``MAX_TEXT`` (saying so); one
call at a time may be asked for whole."""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from pytest_mlab.core.plain_text import printable
from pytest_mlab.core.text import clip
from pytest_mlab.report.browse.trace_pages import line_offsets

MAX_TEXT = 20_000
"""Of one message, reply or tool call's arguments in a page."""
MAX_WHOLE = 20_000_000
"""Of one text of a call asked for whole: past a provider's longest context."""
MAX_CALLS = 50
MAX_BYTES = 2_000_000
_STEP = re.compile(rb'\{"step": ?(-?\d+)')
_CACHED = 32

_lock = threading.Lock()
_steps: OrderedDict[tuple[str, int, int], list[int]] = OrderedDict()


def call_steps(path: Path) -> list[int]:
    """The step of each whole line of the log, in order (0 where a line names none)."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _lock:
        if key in _steps:
            _steps.move_to_end(key)
            return _steps[key]
    found = []
    with path.open("rb") as handle:
        for offset in line_offsets(path):
            handle.seek(offset)
            match = _STEP.match(handle.read(24))
            found.append(int(match.group(1)) if match else 0)
    with _lock:
        _steps[key] = found
        while len(_steps) > _CACHED:
            _steps.popitem(last=False)
    return found


def count_calls(path: Path) -> int:
    return len(line_offsets(path)) if path.is_file() else 0


class _Clipper:
    """Texts clipped to one limit, remembering whether any was."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.clipped = False

    def __call__(self, value: object) -> str:
        text = value if isinstance(value, str) else json.dumps(value, indent=1, default=str)
        if len(text) > self.limit:
            self.clipped = True
        return printable(clip(text, self.limit))


def _number(record: dict[str, Any], key: str) -> float:
    value = record.get(key, 0)
    return float(value) if isinstance(value, int | float) else 0.0


def _tool_calls(calls: object, text: _Clipper) -> list[dict[str, str]]:
    if not isinstance(calls, list):
        return []
    return [{"name": text(c.get("name", "")), "arguments": text(c.get("arguments", ""))}
            for c in calls if isinstance(c, dict)]


def _message(message: object, text: _Clipper) -> dict[str, Any]:
    if not isinstance(message, dict):
        return {"role": "", "content": text(message), "tool_calls": []}
    calls = [call.get("function", call) for call in message.get("tool_calls") or ()
             if isinstance(call, dict)]
    return {"role": text(message.get("role", "")), "content": text(message.get("content") or ""),
            "tool_calls": _tool_calls(calls, text)}


def call_view(number: int, record: dict[str, Any], limit: int = MAX_TEXT) -> dict[str, Any]:
    """One call as the page shows it: every text escaped, and clipped to ``limit``."""
    text = _Clipper(limit)
    messages = record.get("messages")
    reply = record.get("reply")
    reply = reply if isinstance(reply, dict) else {}
    tools = record.get("tools")
    view = {
        "index": number, "step": int(_number(record, "step")),
        "call": int(_number(record, "call")),
        **{key: text(record.get(key) or "") for key in ("role", "model", "answered_by", "via")},
        "tokens_in": int(_number(record, "tokens_in")),
        "tokens_out": int(_number(record, "tokens_out")),
        "cost": _number(record, "cost"), "seconds": _number(record, "seconds"),
        "cached": record.get("cached") is True,
        "error": text(record["error"]) if record.get("error") else None,
        "tools": [text(t) for t in tools] if isinstance(tools, list) else [],
        "messages": [_message(m, text) for m in messages] if isinstance(messages, list) else [],
        "reply": None if not reply else {"text": text(reply.get("text") or ""),
                                         "tool_calls": _tool_calls(reply.get("tool_calls"), text)},
    }
    view["clipped"] = text.clipped
    return view


def _read(handle: Any, offset: int) -> dict[str, Any] | None:
    handle.seek(offset)
    try:
        record = json.loads(handle.readline())
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def calls_page(path: Path, first_step: int, last_step: int | None,
               start: int = 0) -> dict[str, Any]:
    """The calls of steps ``first_step`` .. ``last_step`` (or every later step, where it is
    None), from the ``start``-th of them: as many as fit one page, and where to go on."""
    offsets = line_offsets(path)
    chosen = [n for n, step in enumerate(call_steps(path))
              if step >= first_step and (last_step is None or step <= last_step)]
    views: list[dict[str, Any]] = []
    size, following = 0, start
    with path.open("rb") as handle:
        for number in chosen[start:start + MAX_CALLS]:
            record = _read(handle, offsets[number])
            if record is not None:
                view = call_view(number, record)
                size += len(json.dumps(view))
                if views and size > MAX_BYTES:
                    break
                views.append(view)
            following += 1
    return {"calls": views, "start": start, "total": len(chosen),
            "next": following if following < len(chosen) else None}


def whole_call(path: Path, number: int) -> dict[str, Any] | None:
    """The ``number``-th line of the log (from 0), its texts whole up to MAX_WHOLE."""
    offsets = line_offsets(path)
    if not 0 <= number < len(offsets):
        return None
    with path.open("rb") as handle:
        record = _read(handle, offsets[number])
    return None if record is None else call_view(number, record, MAX_WHOLE)
