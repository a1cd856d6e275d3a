"""What an LLM call returned and cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    """US dollars, from litellm's price table; 0 for models it does not price."""
    calls: int = 0

    def add(self, other: Usage) -> None:
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.cost += other.cost
        self.calls += other.calls

    def since(self, earlier: Usage) -> Usage:
        return Usage(self.tokens_in - earlier.tokens_in, self.tokens_out - earlier.tokens_out,
                     self.cost - earlier.cost, self.calls - earlier.calls)

    def copy(self) -> Usage:
        return Usage(self.tokens_in, self.tokens_out, self.cost, self.calls)

    def as_dict(self) -> dict[str, float]:
        return {"tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "cost": self.cost, "llm_calls": self.calls}


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str
    """JSON text as the model wrote it; it may not parse."""
    id: str = ""


@dataclass(frozen=True)
class Completion:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text, "model": self.model,
            "tool_calls": [{"name": c.name, "arguments": c.arguments, "id": c.id}
                           for c in self.tool_calls],
            "tokens_in": self.usage.tokens_in, "tokens_out": self.usage.tokens_out,
            "cost": self.usage.cost,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Completion:
        return cls(
            text=data["text"], model=data.get("model", ""),
            tool_calls=tuple(ToolCall(c["name"], c["arguments"], c.get("id", ""))
                             for c in data.get("tool_calls", [])),
            usage=Usage(int(data["tokens_in"]), int(data["tokens_out"]),
                        float(data["cost"]), 1),
        )
