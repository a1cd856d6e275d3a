"""What an agent is: the protocol every agent follows, and what it is built from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

if TYPE_CHECKING:
    from pytest_mlab.env.environment import Environment


@dataclass(frozen=True)
class AgentOptions:
    """Command-line choices for the built-in agents; others may ignore them."""

    retrieval: bool = False
    """react: keep a research log and work from what is retrieved from it."""
    tool_calling: bool = False
    """react: use the provider's native tool calling instead of named text fields."""
    invalid_retries: int = 5
    """react: how often an unreadable response is asked for again."""
    command: str | None = None
    """command: the external agent's command line."""


@dataclass(frozen=True)
class AgentContext:
    """What an agent is built from. It never holds the scorer or private answers."""

    task: str
    llm: str | None
    solution_dir: Path | None = None
    """Set only for agents that declare ``needs_solution`` (the oracle)."""
    options: AgentOptions = field(default_factory=AgentOptions)


class Agent(Protocol):
    """What every agent is. Two optional class attributes are read where present:
    ``requires`` (modules the agent imports when it runs; a trial is skipped while one is
    missing) and ``extra`` (the pytest-mlab extra that installs them, named in the reason)."""

    uses_llm: ClassVar[bool]
    """Whether items are multiplied by ``--llm``."""
    needs_solution: ClassVar[bool]
    """Whether the agent is handed the task's reference solution (only the oracle is)."""

    def __init__(self, context: AgentContext) -> None: ...

    def run(self, env: Environment) -> str:
        """Act in ``env`` and return the final answer."""
        ...
