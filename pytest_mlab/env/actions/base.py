"""What an action is: a name, a description, a JSON schema and a function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pytest_mlab.env.actions.backups import Backups
    from pytest_mlab.env.actions.options import ActionOptions
    from pytest_mlab.env.workspace import Workspace
    from pytest_mlab.llm import LLMClient
    from pytest_mlab.sandbox import Sandbox


class ActionContext(Protocol):
    """What an action may use of the environment it runs in (``Environment`` is one)."""

    research_problem: str
    workspace: Workspace
    sandbox: Sandbox
    backups: Backups
    llm: LLMClient | None
    research_log: list[str]
    ask: Callable[[str], str] | None
    action_options: ActionOptions

    @property
    def seconds_left(self) -> float: ...

    def script_timeout(self) -> float: ...

    def submit(self, answer: str) -> None: ...

    def note_exit_code(self, code: int) -> None: ...


class ActionError(Exception):
    """The agent asked for something invalid; the message becomes its observation."""


@dataclass(frozen=True)
class Action:
    name: str
    description: str
    parameters: dict[str, str]
    """Argument name -> description. Every argument is required."""
    function: Callable[..., str]
    integers: frozenset[str] = frozenset()
    """Arguments that are whole numbers; the rest are strings."""
    writes: str | None = None
    """The argument naming the one file the action may change; ``*`` if it runs code
    (anything may change); None if it changes nothing. Snapshots look only there."""

    def json_schema(self) -> dict[str, Any]:
        """The schema for native tool calling."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": {
                "type": "object",
                "properties": {
                    arg: {
                        "type": "integer" if arg in self.integers else "string",
                        "description": text,
                    }
                    for arg, text in self.parameters.items()
                },
                "required": list(self.parameters),
                "additionalProperties": False,
            },
        }

    def describe(self) -> str:
        """The text form for prompt-based agents."""
        args = ", ".join(f'"{arg}": <{text}>' for arg, text in self.parameters.items())
        return f"{self.name}: {self.description}\n  Action Input: {{{args}}}"

    def __call__(self, env: ActionContext, args: dict[str, Any]) -> str:
        missing = [arg for arg in self.parameters if arg not in args]
        extra = [arg for arg in args if arg not in self.parameters]
        if missing or extra:
            expected = ", ".join(self.parameters) or "no arguments"
            raise ActionError(f"{self.name} takes {expected}; got {', '.join(args) or 'none'}.")
        values = {arg: self._value(arg, value) for arg, value in args.items()}
        return self.function(env, **values)

    def _value(self, arg: str, value: Any) -> Any:
        if arg not in self.integers:
            if not isinstance(value, str):
                raise ActionError(f"{self.name}: {arg} must be a string.")
            return value
        try:
            if isinstance(value, bool):
                raise ValueError
            return int(value)
        except (TypeError, ValueError):
            raise ActionError(f"{self.name}: {arg} must be a whole number.") from None
