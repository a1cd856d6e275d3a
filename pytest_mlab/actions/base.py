"""What an action is: a name, a description, a JSON schema and a function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_mlab.env import Environment


class ActionError(Exception):
    """The agent asked for something invalid; the message becomes its observation."""


@dataclass(frozen=True)
class Action:
    name: str
    description: str
    parameters: dict[str, str]
    """Argument name -> description. Every argument is a required string."""
    function: Callable[..., str]

    def json_schema(self) -> dict[str, Any]:
        """The schema for native tool calling."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": {
                "type": "object",
                "properties": {
                    arg: {"type": "string", "description": text}
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

    def __call__(self, env: Environment, args: dict[str, Any]) -> str:
        missing = [arg for arg in self.parameters if arg not in args]
        extra = [arg for arg in args if arg not in self.parameters]
        if missing or extra:
            expected = ", ".join(self.parameters) or "no arguments"
            raise ActionError(f"{self.name} takes {expected}; got {', '.join(args) or 'none'}.")
        bad = [arg for arg, value in args.items() if not isinstance(value, str)]
        if bad:
            raise ActionError(f"{self.name}: {', '.join(bad)} must be a string.")
        return self.function(env, **args)
