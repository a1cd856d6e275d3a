"""Agents found by name: built-in and third-party ones through an entry-point group, or
any class as ``package.module:Class``."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from pytest_mlab.env.agent import Agent

ENTRY_POINT_GROUP = "pytest_mlab.agents"


class UnknownAgent(Exception):
    pass


def available_agents() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))


def load_agent(name: str) -> type[Agent]:
    """An agent class by entry-point name or ``package.module:Class``."""
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            loaded = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise UnknownAgent(f"cannot load agent {name!r}: {exc}") from None
    else:
        matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
        if not matches:
            choices = ", ".join(available_agents())
            raise UnknownAgent(
                f"unknown agent {name!r}; choose one of: {choices}, or package.module:Class"
            )
        loaded = matches[0].load()
    if not callable(getattr(loaded, "run", None)):
        raise UnknownAgent(f"agent {name!r} has no run(env) method")
    agent: type[Agent] = loaded
    return agent
