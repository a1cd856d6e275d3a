"""What an action is: a name, a description, a JSON schema and a function."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pytest_mlab.env.actions.errors import ActionError as ActionError

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


MAX_WHOLE_NUMBER = 2**63 - 1
"""Larger whole numbers are refused: no file has that many lines."""
_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def _names(names: Iterable[str], shown: int = 10) -> str:
    """Argument names for a message: odd or long ones quoted and cut, many summed up."""
    listed = [name if name.isprintable() and len(name) <= 40 else repr(name[:40])
              for name in names]
    more = f" and {len(listed) - shown} more" if len(listed) > shown else ""
    return ", ".join(listed[:shown]) + more


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
        """Check ``args`` and run the action. What the file system or a codec refuses
        (a name too long, a file gone, text that is not UTF-8) comes back as ActionError."""
        missing = [arg for arg in self.parameters if arg not in args]
        extra = [arg for arg in args if arg not in self.parameters]
        if missing or extra:
            expected = ", ".join(self.parameters) or "no arguments"
            raise ActionError(f"{self.name} takes {expected}; got {_names(args) or 'none'}.")
        values = {arg: self._value(arg, value) for arg, value in args.items()}
        try:
            return self.function(env, **values)
        except (OSError, UnicodeError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise ActionError(f"{self.name} failed: {reason}.") from None

    def _value(self, arg: str, value: Any) -> Any:
        if arg in self.integers:
            return self._whole(arg, value)
        if not isinstance(value, str):
            raise ActionError(f"{self.name}: {arg} must be a string.")
        if (unsafe := _UNSAFE.search(value)) is not None:
            what = "a NUL character" if unsafe.group() == "\0" else "a lone surrogate"
            raise ActionError(f"{self.name}: {arg} contains {what} (at {unsafe.start()}), "
                              "which no file name or text may hold.")
        return value

    def _whole(self, arg: str, value: Any) -> int:
        refused = ActionError(f"{self.name}: {arg} must be a whole number.")
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise refused
        if isinstance(value, str) and len(value) > 40:
            raise refused
        try:
            number = int(value)
        except (ValueError, OverflowError):
            raise refused from None
        if isinstance(value, float) and number != value:
            raise refused
        if abs(number) > MAX_WHOLE_NUMBER:
            raise ActionError(f"{self.name}: {arg} is too large ({MAX_WHOLE_NUMBER} at most).")
        return number
