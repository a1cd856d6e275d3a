"""What each LLM call asks of the sampler: temperature, output tokens and stop sequences.

The defaults are MLAgentBench's, per role and per model family. The original chose them
by the API a model went through: OpenAI's own API (its GPT runs) asked for temperature 0.2
and 500 output tokens; the Anthropic, Gemini, CRFM and Hugging Face paths asked for 0.5 and
2000. Summaries and the other fast-model calls used temperature 0.01, and the edit model
4000 output tokens. Every call stopped at "Observation:", and Claude's also at the start
of a new human turn. litellm routes by provider rather than by those APIs, so we choose
by the model's family instead: a GPT model gets the OpenAI path's numbers, every other
model the rest's. docs/paper-parity.md has the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["main", "fast", "edit"]
ROLES: tuple[Role, ...] = ("main", "fast", "edit")

OBSERVATION_STOP = "Observation:"
"""Where the original cut every completion: the model must not write the observation."""
HUMAN_TURN_STOP = "\n\nHuman:"
"""Claude's extra stop in the original: the start of a new human turn."""


@dataclass(frozen=True)
class Sampling:
    """The sampling parameters of one request; None leaves the provider's default."""

    temperature: float | None = None
    max_output_tokens: int | None = None
    stop: tuple[str, ...] = ()

    def request_fields(self, extra_stop: Sequence[str] = ()) -> dict[str, Any]:
        """The fields of a chat-completion request, in the OpenAI names litellm takes."""
        fields: dict[str, Any] = {}
        if self.temperature is not None:
            fields["temperature"] = self.temperature
        if self.max_output_tokens is not None:
            fields["max_tokens"] = self.max_output_tokens
        stop = list(dict.fromkeys([*self.stop, *extra_stop]))
        if stop:
            fields["stop"] = stop
        return fields

    def describe(self) -> str:
        temperature = "provider" if self.temperature is None else f"{self.temperature:g}"
        tokens = "provider" if self.max_output_tokens is None else str(self.max_output_tokens)
        stop = ",".join(repr(s) for s in self.stop) or "none"
        return f"temperature={temperature} max_output_tokens={tokens} stop={stop}"


def model_family(model: str) -> Literal["gpt", "claude", "other"]:
    """The family that decides the original's defaults, from the name after any provider
    prefix (``openai/gpt-4o`` and ``gpt-4o`` are both GPT)."""
    name = model.rsplit("/", 1)[-1].lower()
    if name.startswith(("gpt-", "chatgpt")):
        return "gpt"
    if "claude" in name:
        return "claude"
    return "other"


def paper_sampling(model: str, role: Role) -> Sampling:
    """MLAgentBench's sampling for ``role`` when that role's model is ``model``."""
    family = model_family(model)
    temperature = 0.01 if role == "fast" else (0.2 if family == "gpt" else 0.5)
    tokens = 4000 if role == "edit" else (500 if family == "gpt" else 2000)
    stop = (HUMAN_TURN_STOP, OBSERVATION_STOP) if family == "claude" else (OBSERVATION_STOP,)
    return Sampling(temperature, tokens, stop)


@dataclass(frozen=True)
class SamplingChoice:
    """What the user changed; anything not named keeps the original's default.

    A role mapped to None sends no such field, leaving the provider's default.
    """

    temperature: Mapping[Role, float | None] = field(default_factory=dict)
    max_output_tokens: Mapping[Role, int | None] = field(default_factory=dict)
    stop: tuple[str, ...] | None = None
    """None: the original's stop sequences; an empty tuple: none."""

    def resolve(self, model: str, role: Role) -> Sampling:
        paper = paper_sampling(model, role)
        return Sampling(
            temperature=self.temperature.get(role, paper.temperature),
            max_output_tokens=self.max_output_tokens.get(role, paper.max_output_tokens),
            stop=paper.stop if self.stop is None else self.stop,
        )

    @property
    def is_paper(self) -> bool:
        return not self.temperature and not self.max_output_tokens and self.stop is None
