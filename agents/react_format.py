"""The research agent's answer format: named fields, and reading them back.

What counts as usable follows MLAgentBench: every field must be there, each name as written
and in the order given, and the action must be exactly one the environment knows, or the
answer is asked for again (no step is taken). ``lenient`` reading (``--mlab-answer-parsing=
lenient``) takes every answer the strict one takes, read the same way, and more: fields in
any order and case at line starts, in markdown bold, and an action name in quotes or
backticks. An Action Input that cannot be read is not asked for again: the agent
is shown why, and that costs no step either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

FIELDS = ("Reflection", "Research Plan and Status", "Fact Check", "Thought", "Action",
          "Action Input")
THOUGHT_FIELDS = FIELDS[:4]
"""The fields written as text when the action is chosen by a native tool call."""
_FIELD = re.compile(
    r"^[*#\s]*(" + "|".join(re.escape(name) for name in FIELDS) + r")\s*[*]*\s*:[*]*[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_OBSERVATION = re.compile(r"^[*#\s]*Observation\s*[*]*\s*:", re.IGNORECASE | re.MULTILINE)


class Unreadable(Exception):
    """The answer does not follow the format; it is asked for again."""


class ArgumentError(Exception):
    """The Action Input cannot be read as the action's arguments."""


@dataclass(frozen=True)
class Decision:
    fields: dict[str, str]
    action: str
    raw_input: str
    """The Action Input as the model wrote it."""


def _before_observation(text: str) -> str:
    """Anything from an "Observation:" line on is the model imagining the result (a stop
    sequence normally cuts it): dropped."""
    cut = _OBSERVATION.search(text)
    return text if cut is None else text[:cut.start()]


def fields_in_order(text: str, names: Sequence[str] = FIELDS) -> dict[str, str] | None:
    """The fields as MLAgentBench reads them: every name exactly as written, then a colon,
    in the order of ``names``, anywhere in the text; the first name at its first place, each
    later one at its last place that leaves room for the names after it (what the
    original's one greedy pattern matched, found here in linear time: that pattern
    backtracks without end on a long answer full of names). None unless all are there."""
    text = _before_observation(text)
    heads = [f"{name}:" for name in names]
    starts: list[int] = []
    end = len(text)
    for head in reversed(heads[1:]):
        end = text.rfind(head, 0, end)
        if end < 0:
            return None
        starts.insert(0, end)
    first = text.find(heads[0], 0, end) if heads else -1
    if first < 0:
        return None
    starts.insert(0, first)
    stops = [*starts[1:], len(text)]
    return {name: text[start + len(head):stop].strip()
            for name, head, start, stop in zip(names, heads, starts, stops, strict=True)}


def fields_of(text: str, names: Sequence[str] = FIELDS) -> dict[str, str]:
    """The named fields found in ``text`` at line starts, in any order and case, markdown
    bold allowed (lenient reading, and the text of a tool-calling answer)."""
    text = _before_observation(text)
    matches = list(_FIELD.finditer(text))
    canonical = {name.lower(): name for name in FIELDS}
    found: dict[str, str] = {}
    ends = [m.start() for m in matches[1:]] + [len(text)]
    for match, end in zip(matches, ends[:len(matches)], strict=True):
        name = canonical[match.group(1).lower()]
        if name in names:
            found[name] = text[match.end():end].strip()
    return found


def parse_response(text: str, known: Collection[str], required: Sequence[str] = FIELDS,
                   *, lenient: bool = False) -> Decision:
    """The decision in ``text``; ``Unreadable`` if a field is missing or the action is
    not one of ``known``."""
    found = fields_in_order(text, required)
    if not lenient or (found is not None and found["Action"] in known):
        # Lenient reading takes first what the strict one takes, and reads it the same.
        if found is None:
            raise Unreadable(f"the answer lacks the fields {', '.join(required)}, in order")
        fields, action = found, found["Action"]
    else:
        fields = fields_of(text)
        missing = [name for name in required if name not in fields]
        if missing:
            raise Unreadable(f"the answer has no {', no '.join(missing)}")
        action = (fields["Action"].splitlines() or [""])[0].strip().strip("`*\"'").strip()
    if action not in known:
        raise Unreadable(f"{action!r} is not an action")
    return Decision(fields, action, fields["Action Input"])


def _unfenced(text: str) -> str:
    return re.sub(r"^```\w*[ \t]*\n?|\n?[ \t]*```$", "", text.strip()).strip()


def _json_candidates(text: str) -> list[str]:
    start, end = text.find("{"), text.rfind("}")
    return [text] + ([text[start:end + 1]] if 0 <= start < end else [])


def _string_value(raw: str) -> str:
    raw = raw.strip().rstrip(",").strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        try:
            value = json.loads(raw, strict=False)
        except ValueError:
            return raw[1:-1]
        return value if isinstance(value, str) else raw[1:-1]
    return raw


def _by_keys(text: str, parameters: Sequence[str]) -> dict[str, Any] | None:
    """Each argument as the text between its key and the next one, in order: how an
    Action Input with unescaped quotes or newlines inside a value is still read."""
    start, end = text.find("{"), text.rfind("}")
    if not 0 <= start < end or not parameters:
        return None
    body = text[start + 1:end]
    keys = [re.search(rf'"{re.escape(name)}"\s*:', body) for name in parameters]
    if any(key is None for key in keys):
        return None
    found = [key for key in keys if key is not None]
    if any(a.start() >= b.start() for a, b in pairwise(found)):
        return None
    values = [body[key.end():after.start()] for key, after in pairwise(found)]
    values.append(body[found[-1].end():])
    return {name: _string_value(v) for name, v in zip(parameters, values, strict=True)}


def parse_action_input(raw: str, parameters: Sequence[str]) -> dict[str, Any]:
    """The arguments in ``raw``: JSON (raw newlines inside strings allowed), else read
    key by key; ``ArgumentError`` unless the entries are exactly ``parameters``."""
    text = _unfenced(raw)
    problem = "it is not valid JSON"
    for candidate in _json_candidates(text):
        try:
            value = json.loads(candidate, strict=False)
        except ValueError:
            continue
        if not isinstance(value, dict):
            problem = "it is not a JSON object"
        elif set(value) == set(parameters):
            return value
        else:
            problem = f"its entries are {', '.join(value) or 'none'}"
        break
    fallback = _by_keys(text, parameters)
    if fallback is not None:
        return fallback
    raise ArgumentError(problem)


def usage(parameters: dict[str, str]) -> str:
    """An action's Action Input as a template: each argument with its description."""
    entries = ",\n".join(f'    "{name}": [{text}]' for name, text in parameters.items())
    return "{\n" + entries + "\n}" if entries else "{}"


def argument_error(action: str, parameters: dict[str, str], problem: str) -> str:
    """The observation for an Action Input that could not be read (no step was taken)."""
    return (f"Action Input error: the Action Input for {action} could not be used: {problem}."
            f" It must be valid JSON with exactly these entries; check the commas between "
            f"entries, and do not use triple quotes, which JSON does not have:\n"
            f"{usage(parameters)}")
