"""A trace read a range of steps at a time: its line offsets are found once (one pass in
chunks, no line held longer than it takes to find its end), then each range is read by
seeking, so a trace of any size is never in memory, nor sent, whole."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from pytest_mlab.core.plain_text import printable
from pytest_mlab.core.snapshots import manifest_steps
from pytest_mlab.core.text import clip
from pytest_mlab.report.steps import step_changes

CHUNK = 1 << 20
MAX_TEXT = 4_000
"""What the trace keeps of an observation or argument; longer text is clipped the same way."""
MAX_DIFF = 20_000
"""Of one file's diff: report.diffs caps its lines, not their length."""
MAX_STEPS = 50
"""Steps one request may ask for."""
MAX_BYTES = 1_000_000
"""A range stops early once its steps reach this much text (it always holds one step)."""
_CACHED = 64

_lock = threading.Lock()
_offsets: OrderedDict[tuple[str, int, int], list[int]] = OrderedDict()


def _scan(path: Path) -> list[int]:
    """The offset of each whole line; a last line cut short by an interruption is left out."""
    starts, position, start = [], 0, 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            found = chunk.find(b"\n")
            while found != -1:
                starts.append(start)
                start = position + found + 1
                found = chunk.find(b"\n", found + 1)
            position += len(chunk)
    return starts


def line_offsets(path: Path) -> list[int]:
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _lock:
        if key in _offsets:
            _offsets.move_to_end(key)
            return _offsets[key]
    found = _scan(path)
    with _lock:
        _offsets[key] = found
        while len(_offsets) > _CACHED:
            _offsets.popitem(last=False)
    return found


def count_steps(path: Path) -> int:
    return len(line_offsets(path)) if path.is_file() else 0


def read_lines(path: Path, start: int, count: int) -> list[dict[str, Any]]:
    """Records ``start`` .. ``start + count - 1``; stops at a line that is not a record."""
    offsets = line_offsets(path)
    records: list[dict[str, Any]] = []
    with path.open("rb") as handle:
        for offset in offsets[max(0, start):max(0, start) + max(0, count)]:
            handle.seek(offset)
            try:
                record = json.loads(handle.readline())
            except ValueError:
                break
            if not isinstance(record, dict):
                break
            records.append(record)
    return records


def _text(value: object) -> str:
    return printable(clip(str(value), MAX_TEXT))


def _number(record: dict[str, Any], key: str) -> float:
    value = record.get(key, 0)
    return float(value) if isinstance(value, int | float) else 0.0


def step_view(record: dict[str, Any], manifests: Path, objects: Path,
              snapshots: list[int]) -> dict[str, Any]:
    """One step as the page shows it: every text escaped and clipped, what it changed."""
    step = record.get("step")
    step = step if isinstance(step, int) else 0
    args = record.get("args")
    usage = record.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    changes, note = step_changes(objects, manifests, snapshots, step)
    return {
        "step": step, "action": _text(record.get("action", "")),
        # Agents that reason in no words (baseline, oracle, external ones) record none.
        "thought": _text(record["thought"]) if record.get("thought") else None,
        "args": {_text(k): _text(v) for k, v in args.items()} if isinstance(args, dict) else {},
        "observation": _text(record.get("observation", "")),
        "seconds": max(0.0, _number(record, "ended") - _number(record, "started")),
        "exit_code": record.get("exit_code") if isinstance(record.get("exit_code"), int) else None,
        "tokens_in": int(_number(usage, "tokens_in")),
        "tokens_out": int(_number(usage, "tokens_out")),
        "cost": _number(usage, "cost"), "llm_calls": int(_number(usage, "llm_calls")),
        "changes": [{**change.model_dump(), "diff": clip(change.diff, MAX_DIFF)}
                    for change in changes],
        "changes_note": note,
    }


def step_range(trace: Path, manifests: Path, objects: Path, start: int,
               count: int) -> tuple[list[dict[str, Any]], int]:
    """Up to ``count`` (at most MAX_STEPS) steps from ``start`` and how many the trace has."""
    total = count_steps(trace)
    snapshots = manifest_steps(manifests) if manifests.is_dir() else []
    views: list[dict[str, Any]] = []
    size = 0
    for record in read_lines(trace, start, min(count, MAX_STEPS)):
        view = step_view(record, manifests, objects, snapshots)
        size += len(json.dumps(view))
        if views and size > MAX_BYTES:
            break
        views.append(view)
    return views, total
