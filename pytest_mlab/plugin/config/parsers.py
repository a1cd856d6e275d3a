"""Parsers of option values: each returns the value or raises ArgumentTypeError with one
sentence, so a mistake on the command line, in an ini key or a variable reads the same."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import TypeVar

from pytest_mlab.analysis.gate import Limit
from pytest_mlab.analysis.metric_comparisons import Metric
from pytest_mlab.llm.sampling import ROLES, Role

S = TypeVar("S", bound=str)
T = TypeVar("T")
RoleValues = tuple[tuple[Role | None, T | None], ...]
"""(role, value) pairs in the order given; role None is every role."""
_LIMIT = re.compile(r"(success|improvement):-?(\d+(?:\.\d*)?|\.\d+)(%?)")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_GPU_UUID = re.compile(r"(GPU|MIG)-[0-9A-Za-z/-]+")


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected a number >= {low}, got {value}")
        return value

    return parse


positive_int = _int_at_least(1)
whole_number = _int_at_least(0)


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {value:g}")
    return value


def fraction(text: str) -> float:
    value = positive_float(text)
    if value >= 10:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.10, got {value:g}")
    return value


def switch(text: str) -> bool:
    """An on/off setting written in an ini key or a variable."""
    value = text.strip().lower()
    if value in ("true", "yes", "on", "1"):
        return True
    if value in ("false", "no", "off", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def gpu_list(text: str) -> tuple[str, ...]:
    """``0,1`` (device indices), GPU/MIG UUIDs, or ``none``: the forms of
    CUDA_VISIBLE_DEVICES."""
    if text.strip().lower() in ("", "none", "-1"):
        return ()
    ids = tuple(part.strip() for part in text.split(","))
    if not all(part.isdigit() or _GPU_UUID.fullmatch(part) for part in ids):
        raise argparse.ArgumentTypeError(
            f"expected GPU indices or UUIDs such as 0,1 or GPU-<uuid>, got {text!r}"
        )
    return ids


def choice(options: tuple[S, ...]) -> Callable[[str], S]:
    def parse(text: str) -> S:
        for option in options:
            if text == option:
                return option
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(options)}, got {text!r}")

    return parse


def parse_limit(text: str) -> Limit:
    """``success:-10%``, ``improvement:-5%``, or the same as fractions: ``success:-0.1``."""
    match = _LIMIT.fullmatch(text.strip())
    if match is None or (not match.group(3) and float(match.group(2)) >= 1):
        raise argparse.ArgumentTypeError(
            "expected METRIC:-N% or METRIC:-FRACTION, METRIC being success or improvement "
            f"(e.g. success:-10% or improvement:-0.05), got {text!r}"
        )
    value = float(match.group(2))
    metric: Metric = "success" if match.group(1) == "success" else "improvement"
    return Limit(metric, value / 100 if match.group(3) else value)


def parse_alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a probability such as 0.05, got {text!r}")
    return value


def save_name(text: str) -> str:
    """A name for a saved run; empty means the run id."""
    if text and not _NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            "expected a name of letters, digits, '.', '_' and '-' written after '=' "
            f"(--mlab-save=NAME), got {text!r}"
        )
    return text


def _per_role(parse: Callable[[str], T], what: str) -> Callable[[str], RoleValues[T]]:
    """``VALUE`` for every role, or ``ROLE=VALUE,...``; ``none`` sends no such field."""

    def parse_roles(text: str) -> RoleValues[T]:
        pairs: list[tuple[Role | None, T | None]] = []
        for part in text.split(","):
            role_name, _, value = part.strip().rpartition("=")
            role = next((r for r in ROLES if r == role_name.strip()), None)
            if role_name and role is None:
                raise argparse.ArgumentTypeError(
                    f"expected a role of {', '.join(ROLES)} before '=', got {role_name!r}")
            value = value.strip()
            try:
                pairs.append((role, None if value.lower() == "none" else parse(value)))
            except (ValueError, argparse.ArgumentTypeError):
                raise argparse.ArgumentTypeError(
                    f"expected {what} or none, optionally as ROLE=VALUE (e.g. fast=0.01), "
                    f"got {part.strip()!r}") from None
        return tuple(pairs)

    return parse_roles


def _temperature(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 2:
        raise ValueError(text)
    return value


temperatures = _per_role(_temperature, "a temperature from 0 to 2")
output_tokens = _per_role(positive_int, "a number of tokens")


def stop_sequence(text: str) -> str | None:
    """A stop sequence, with \\n and \\t written as such; ``none`` for no stop at all."""
    if text.strip().lower() == "none":
        return None
    if not text:
        raise argparse.ArgumentTypeError("expected a stop sequence or none, got ''")
    return text.replace("\\n", "\n").replace("\\t", "\t")
