"""The options of external agents, in a group of their own (read by plugin/gateway.py)."""

from __future__ import annotations

from collections.abc import Callable


def add_gateway_options(option: Callable[..., None]) -> None:
    option("--mlab-agent-venv", "mlab_agent_venv", "The external agent's own installation (a "
           "virtual environment), shown read-only in the sandbox. Default: for the built-in "
           "adapters, the one 'python -m pytest_mlab agent-venv NAME' makes in the cache.",
           metavar="DIR", ini="The external agent's virtual environment")
