"""Trials named by node id: a copied id, or one pytest's cache remembers for --lf and --ff,
selects and configures its trial on its own, without repeating --agent or --llm.

An item's name is ``task[agent-llm-tK]`` (``task[agent-tK]`` for agents without a model).
Agent and model names may hold dashes themselves, so the agent is the longest installed
agent name (or ``module:Class``) the name starts with; the rest is the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

_NAME = re.compile(r"(?P<task>[a-z0-9][a-z0-9-]*)\[(?P<rest>.+)-t(?P<trial>\d+)\]")
_CLASS = re.compile(r"[\w.]+:\w+")


@dataclass(frozen=True)
class NamedTrial:
    agent: str
    llm: str | None
    trial: int


def split_agent(rest: str, agents: Iterable[str]) -> tuple[str, str | None] | None:
    """``agent`` or ``agent-llm`` as (agent, llm), the agent being the longest match."""
    if (match := _CLASS.match(rest)) is not None:
        agent = match.group(0)
    else:
        names = [name for name in agents if rest == name or rest.startswith(name + "-")]
        if not names:
            return None
        agent = max(names, key=len)
    llm = rest[len(agent) + 1:] if len(rest) > len(agent) else None
    return (agent, llm) if llm != "" else None


def parse_item_name(name: str, agents: Iterable[str]) -> NamedTrial | None:
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    split = split_agent(match.group("rest"), agents)
    if split is None:
        return None
    return NamedTrial(split[0], split[1], int(match.group("trial")))


def _node_ids(config: pytest.Config) -> list[tuple[Path, str]]:
    """(task.toml path, item name) of the node ids given or remembered as failed."""
    found = []
    here, root = config.invocation_params.dir, config.rootpath
    for arg in config.args:
        path, sep, name = arg.partition("::")
        if sep and path.endswith(".toml"):
            found.append(((here / path).resolve(), name))
    if config.getoption("lf", False) or config.getoption("failedfirst", False):
        cache = config.cache.get("cache/lastfailed", {}) if config.cache else {}
        for nodeid in cache:
            path, sep, name = nodeid.partition("::")
            if sep and path.endswith(".toml"):
                found.append(((root / path).resolve(), name))
    return found


def named_trials(config: pytest.Config, agents: Iterable[str]) -> dict[Path, set[NamedTrial]]:
    """The trials node ids name, by the task.toml they belong to."""
    known = list(agents)
    named: dict[Path, set[NamedTrial]] = {}
    for path, name in _node_ids(config):
        trial = parse_item_name(name, known)
        if trial is not None:
            named.setdefault(path, set()).add(trial)
    return named
