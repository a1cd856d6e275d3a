"""The research agent's answer format: named fields, and reading them back."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

FIELDS = ("Reflection", "Research Plan and Status", "Fact Check", "Thought", "Action",
          "Action Input")
_FIELD = re.compile(
    r"^[*#\s]*(" + "|".join(re.escape(name) for name in FIELDS) + r")\s*[*]*\s*:[*]*\s*",
    re.IGNORECASE | re.MULTILINE,
)


class Unreadable(Exception):
    """The response does not follow the format; the message says how."""


@dataclass(frozen=True)
class Decision:
    fields: dict[str, str]
    action: str
    args: dict[str, Any]


def _fields(text: str) -> dict[str, str]:
    matches = list(_FIELD.finditer(text))
    canonical = {name.lower(): name for name in FIELDS}
    found: dict[str, str] = {}
    ends = [m.start() for m in matches[1:]] + [len(text)]
    for match, end in zip(matches, ends[:len(matches)], strict=True):
        found[canonical[match.group(1).lower()]] = text[match.end():end].strip()
    return found


def json_object(text: str) -> dict[str, Any]:
    """The JSON object in ``text``, tolerating code fences and words around it."""
    stripped = re.sub(r"^```\w*\s*|\s*```$", "", text.strip())
    candidates = [stripped]
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start:end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise Unreadable("Action Input must be one JSON object, e.g. {\"script_name\": \"train.py\"}")


def parse_response(text: str) -> Decision:
    fields = _fields(text)
    missing = [name for name in ("Action", "Action Input") if not fields.get(name)]
    if missing:
        raise Unreadable(f"the response has no {' and no '.join(missing)} field")
    action = fields["Action"].splitlines()[0].strip().strip("`*\"'")
    return Decision(fields, action, json_object(fields["Action Input"]))
